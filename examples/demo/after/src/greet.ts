/** Options of greet(). */
export interface GreetOptions {
  /** The greeting word. */
  greeting?: string;
  /** End with an exclamation mark instead of a full stop. */
  loud?: boolean;
}

/** Greets someone by name. */
export function greet(name: string, options: GreetOptions = {}): string {
  const word = options.greeting ?? "Hi";
  return `${word}, ${name}${options.loud ? "!" : "."}`;
}
