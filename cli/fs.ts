// The atomic writers live in shared/ (the model recorder uses them too).
export * from "../shared/fs.js";
