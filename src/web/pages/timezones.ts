/** The timezone picker: every IANA zone this runtime knows. */
import { html, type Html } from '../html';

const ZONES: readonly string[] = (() => {
  const zones = Intl.supportedValuesOf('timeZone');
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
})();

export function timezoneOptions(selected: string): Html {
  const zones = ZONES.includes(selected) ? ZONES : [selected, ...ZONES];
  return html`${zones.map((zone) => html`<option value="${zone}"${zone === selected ? html` selected` : ''}>${zone.replace(/_/g, ' ')}</option>`)}`;
}
