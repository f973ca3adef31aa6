import { UsageError } from "../../shared/errors.js";
import type { Command } from "../io.js";

export const command: Command = async () => {
  throw new UsageError("impact plan is not built yet");
};
