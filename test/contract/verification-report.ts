/**
 * Turns a failed Pact verification into a message a person can read: pact-js rejects with the
 * verifier's JSON report, which holds every mismatch but buries it in one long line. Here each
 * failed interaction is listed with its consumer, its provider states and each mismatch.
 */

interface Mismatch {
  type?: string;
  path?: string;
  mismatch?: string;
  expected?: unknown;
  actual?: unknown;
}

interface VerificationReport {
  errors?: Array<{ interaction?: string; mismatch?: { mismatches?: Mismatch[]; message?: string; type?: string } }>;
  pendingErrors?: unknown[];
}

const KINDS: Record<string, string> = {
  StatusMismatch: 'status',
  BodyMismatch: 'body',
  BodyTypeMismatch: 'body type',
  HeaderMismatch: 'header',
  MetadataMismatch: 'metadata',
};

/** "Verifying a pact between C and P Given s1 And s2 - description" -> its parts. */
function parseInteraction(text: string): { consumer?: string; states: string[]; description: string } {
  const match = /^Verifying a pact between (.+?) and \S+(?: Given (.+?))? - (.+)$/s.exec(text);
  if (!match) return { consumer: undefined, states: [], description: text };
  return { consumer: match[1], states: match[2] ? match[2].split(' And ') : [], description: match[3] };
}

function describeMismatch(m: Mismatch): string {
  const kind = KINDS[m.type ?? ''] ?? m.type ?? 'mismatch';
  const where = m.path && m.path !== '$' ? ` ${m.path}` : m.path === '$' ? ' (whole body)' : '';
  return `${kind}${where}: ${m.mismatch ?? `expected ${JSON.stringify(m.expected)} but got ${JSON.stringify(m.actual)}`}`;
}

export function describeVerificationFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  let report: VerificationReport;
  try {
    report = JSON.parse(message) as VerificationReport;
  } catch {
    return message;
  }
  const errors = report.errors ?? [];
  if (errors.length === 0) return message;
  const lines = [`Daybook failed ${errors.length} verification${errors.length > 1 ? 's' : ''} of its consumers' contracts:`];
  errors.forEach((entry, index) => {
    const { consumer, states, description } = parseInteraction(entry.interaction ?? '');
    lines.push('', consumer ? `${index + 1}) ${consumer}: "${description}"` : `${index + 1}) ${description}`);
    if (states.length > 0) lines.push(`   given: ${states.join('; ')}`);
    const mismatches = entry.mismatch?.mismatches ?? [];
    if (mismatches.length === 0) lines.push(`   - ${entry.mismatch?.message ?? JSON.stringify(entry.mismatch)}`);
    for (const m of mismatches) lines.push(`   - ${describeMismatch(m)}`);
  });
  return lines.join('\n');
}
