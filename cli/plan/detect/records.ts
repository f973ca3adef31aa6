import picomatch from "picomatch";
import { DEFAULT_IGNORE_GLOBS } from "../../../shared/config.js";

/** Records of the past (changelogs, release notes, history files, changesets, migration guides), whatever their case. */
export const isRecord = picomatch(DEFAULT_IGNORE_GLOBS, { dot: true, nocase: true });
