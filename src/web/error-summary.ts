/**
 * A form's refusal at the top of the page (docs/decisions.md, "Form errors at the top"): a form
 * low on a long page (the account page's delete form is 1,000-1,500 px down on a phone) showed its
 * message where nobody was looking after the page came back. The summary sits right under the
 * page's heading, is announced (role="alert"), and links to the field to fix; the form keeps its
 * own copy of the message beside the fields.
 */
import { html, type Html } from './html';

/** "Your account was not deleted: Wrong password." with a link to the field `fieldId`. */
export function errorSummary(what: string, message: string, fieldId: string): Html {
  return html`<div class="error error-summary" role="alert" id="problem"><p><strong>${what}.</strong> ${message}</p><p><a href="#${fieldId}">Go to the form</a></p></div>`;
}
