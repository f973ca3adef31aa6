/** Names of environment variables whose values must never be printed or written. */
const SECRET_ENV = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)S?$/i;
/** Shapes of well-known secrets, redacted even when we do not know their value. */
// Long enough (and after "token", with a digit) that prose such as "sk-your-key" or
// "token authentication" is left alone.
const SECRET_SHAPES = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{16,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{16,}/g,
  /\b(Bearer)\s+[A-Za-z0-9._~+/-]{12,}=*/gi,
  /\b(token)\s+(?=[A-Za-z._~+/-]*\d)[A-Za-z0-9._~+/-]{12,}=*/gi,
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
    if (!value || !SECRET_ENV.test(name)) continue;
    // A list-valued variable (IMPACT_SERVER_TOKENS="a,b") holds several secrets.
    for (const secret of [value, ...value.split(/[\s,]+/)]) {
      if (secret.length >= 8) out = out.split(secret).join("[redacted]");
    }
  }
  return out;
}
