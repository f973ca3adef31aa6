/** The model used when neither `--model`, `IMPACT_MODEL` nor the config names one. */
export const DEFAULT_MODEL = "gpt-4.1-mini";
/** `--model replay:FILE` answers from a recording instead of a model. */
export const REPLAY_PREFIX = "replay:";
