/**
 * A correlation as a person reads it: its sentence, its strength as a bar (r) and its confidence
 * as stars, and, where the two labels seem to disagree, a sentence that explains both
 * (docs/pages.md, "Correlation wording"): the strength says how closely the two move together,
 * the stars how sure Daybook is that this is not chance. A weak link found over many days can be
 * certain; a strong one over few days can be a guess.
 */
import type { CorrelationObject } from '../domain/derived/correlations';
import { correlationBar } from './charts';
import { html, type Html } from './html';
import { pairHref } from './links';

export function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function stars(count: number): Html {
  return html`<span class="stars" role="img" aria-label="${count} of 5 stars">${'★'.repeat(count)}<span class="muted">${'☆'.repeat(5 - count)}</span></span>`;
}

/** The explanation a pair needs when its strength and its stars point different ways, else undefined. */
export function reconcile(correlation: CorrelationObject): string | undefined {
  const r = Math.abs(correlation.value);
  if (r < 0.4 && correlation.stars >= 3) {
    return `The two go together only a little (r = ${correlation.value.toFixed(2)}), but over ${correlation.period} days that small tendency is too steady to be chance.`;
  }
  if (r >= 0.6 && correlation.stars <= 2) {
    return `The two moved closely together (r = ${correlation.value.toFixed(2)}), but over ${correlation.period} days that could still be chance.`;
  }
  return undefined;
}

/** One correlation as a list item linking to the page that draws the pair. */
export function correlationItem(correlation: CorrelationObject): Html {
  const why = reconcile(correlation);
  return html`<li class="correlation"><a href="${pairHref(correlation.attribute, correlation.attribute2)}"><strong>${sentence(correlation.second_person)}</strong></a>
<div class="measures">${correlationBar(correlation.value)} <span>Strength: ${correlation.strength_description}</span> <span>Confidence: ${stars(correlation.stars)} ${correlation.stars_description}</span> <span class="muted">over ${correlation.period} days</span></div>
${why ? html`<p class="muted why">${why}</p>` : ''}</li>`;
}
