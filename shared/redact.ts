/** Names of environment variables whose values must never be printed or written. */
const SECRET_ENV = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)S?$/i;
/** Shapes of well-known secrets, redacted even when we do not know their value. */
const SECRET_SHAPES = [
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{16,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{16,}/g,
  /\b(Bearer|token)\s+[A-Za-z0-9._~+/-]{12,}=*/gi,
];

/**
 * Removes secrets from text that will be printed, logged or written: the values of
 * secret-named environment variables, and anything shaped like an API key or token.
 */
export function redactSecrets(text: string, env: Record<string, string | undefined> = process.env): string {
  let out = redactSecretValues(text, env);
  for (const shape of SECRET_SHAPES) {
    out = out.replace(shape, (_match, scheme?: string) =>
      typeof scheme === "string" && /^(bearer|token)$/i.test(scheme) ? `${scheme} [redacted]` : "[redacted]",
    );
  }
  return out;
}

/**
 * Removes only the values of secret-named environment variables, matching no shapes: for
 * text that must otherwise stay byte-exact (a model's recorded answers, which replay
 * hands back as they were).
 */
export function redactSecretValues(
  text: string,
  env: Record<string, string | undefined> = process.env,
): string {
  let out = text;
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 8 && SECRET_ENV.test(name)) out = out.split(value).join("[redacted]");
  }
  return out;
}
