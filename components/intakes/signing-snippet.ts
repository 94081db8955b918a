/** A first signed delivery for a webhook intake, ready to paste (the secret left for the sender to fill in). */
export function signingSnippet(url: string): string {
  return [
    "SECRET='<the secret above>'",
    `body='{"title":"Hello from curl"}'`,
    "t=$(date +%s)",
    `sig=$(printf '%s.%s' "$t" "$body" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d' ' -f1)`,
    `curl -i -X POST -H 'content-type: application/json' -H "X-Conveyor-Signature: t=$t,v1=$sig" --data "$body" ${url}`,
  ].join("\n");
}
