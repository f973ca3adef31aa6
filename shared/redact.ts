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

/** Secrets that are never documentation, by the shape of their text. */
const LEAK_SHAPES: { name: string; pattern: RegExp }[] = [
  { name: "a private key block", pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { name: "an OpenAI-style API key", pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}/ },
  { name: "a GitHub token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})/ },
  { name: "an AWS access key id", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { name: "a Slack token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { name: "a Google API key", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  {
    name: "an AWS secret access key",
    pattern: /\baws_secret_access_key\s*[=:]\s*["']?[A-Za-z0-9/+]{40}/i,
  },
  { name: "a GitLab token", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { name: "an npm token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { name: "a PyPI token", pattern: /\bpypi-AgE[A-Za-z0-9_-]{50,}/ },
  { name: "a Hugging Face token", pattern: /\bhf_[A-Za-z0-9]{34,}\b/ },
  { name: "a Stripe secret key", pattern: /\b[sr]k_live_[A-Za-z0-9]{20,}/ },
  { name: "a SendGrid API key", pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/ },
  { name: "an Azure storage account key", pattern: /\bAccountKey=[A-Za-z0-9/+]{86}==/ },
];

/**
 * What kind of secret `text` holds (a private key block or a well-known token shape), or
 * undefined. Patches are checked with it before they leave the machine.
 */
export function secretShapeIn(text: string): string | undefined {
  return LEAK_SHAPES.find((shape) => shape.pattern.test(text))?.name;
}

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
