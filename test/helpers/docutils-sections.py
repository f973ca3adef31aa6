"""Test oracle: the sections docutils finds in reStructuredText documents.

Reads a JSON array of documents on stdin and writes, for each, a JSON array of
[level, line, title] (level 1 for the top sections, line 1-based) on stdout.
"""
import json
import sys

from docutils import nodes
from docutils.core import publish_doctree

SETTINGS = {
    "doctitle_xform": False,
    "sectsubtitle_xform": False,
    "report_level": 5,
    "halt_level": 5,
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "warning_stream": False,
}


def sections(text):
    tree = publish_doctree(text, settings_overrides=SETTINGS)
    found = []

    def walk(node, level):
        for child in node.children:
            if isinstance(child, nodes.section):
                title = child.next_node(nodes.title)
                found.append([level, title.line if title is not None else None, title.astext() if title is not None else ""])
                walk(child, level + 1)
            elif isinstance(child, nodes.Element):
                walk(child, level)

    walk(tree, 1)
    return found


def main():
    documents = json.load(sys.stdin)
    json.dump([sections(text) for text in documents], sys.stdout)


main()
