/** Impact's version: `impact --version`, and part of every result cache key. */
export const VERSION = "0.1.0";
