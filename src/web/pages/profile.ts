/** Profile settings: names, avatar, timezone (which decides every "today"), display units, and v1's bio, url and private. */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import type { Session } from '../../domain/identity/sessions';
import { findUserById, profileProblems, updateProfile, type ProfileSettings, type User } from '../../domain/identity/users';
import { localDateTime } from '../../domain/time';
import { notFound } from '../../http/errors';
import { checked, field } from '../forms';
import { html } from '../html';
import { sendPage } from '../layout';
import { formPage, page, requireSession } from '../page';
import { navFor } from '../session';
import { timezoneOptions } from './timezones';

const IMPERIAL: ReadonlyArray<[keyof ProfileSettings, string]> = [
  ['imperial_distance', 'Show distances in miles'],
  ['imperial_weight', 'Show weights in pounds'],
  ['imperial_energy', 'Show energy in calories'],
  ['imperial_liquid', 'Show liquids in fluid ounces'],
  ['imperial_temperature', 'Show temperatures in Fahrenheit'],
];

function profileForm(ctx: Koa.Context, deps: Deps, session: Session, values: ProfileSettings, notice?: { text: string; error: boolean }, status = 200): void {
  const nav = navFor(session, deps.now());
  const box = (name: keyof ProfileSettings, label: string) =>
    html`<label class="check"><input type="checkbox" name="${name}" value="1"${values[name] ? html` checked` : ''}> ${label}</label>`;
  sendPage(ctx, {
    title: 'Profile',
    status,
    nav,
    body: html`<h1>Profile</h1>
${notice ? html`<p class="${notice.error ? 'error' : 'notice'}" role="status">${notice.text}</p>` : ''}
<form method="post" action="/settings/profile" class="card">
<input type="hidden" name="csrf_token" value="${nav.csrf}">
<p class="muted">Signed in as <strong>${session.username}</strong>. Your local time is ${localDateTime(deps.now(), values.timezone).replace('T', ' ')}.</p>
<div class="grid">
<div><label for="first_name">First name</label><input type="text" id="first_name" name="first_name" value="${values.first_name}" maxlength="150"></div>
<div><label for="last_name">Last name</label><input type="text" id="last_name" name="last_name" value="${values.last_name}" maxlength="150"></div>
</div>
<label for="avatar">Avatar URL</label>
<input type="url" id="avatar" name="avatar" value="${values.avatar}" placeholder="https://…">
<label for="timezone">Timezone</label>
<select id="timezone" name="timezone">${timezoneOptions(values.timezone)}</select>
<p class="muted">Your timezone decides what "today" is for every app that writes or reads your data.</p>
<h2>Units</h2>
<p class="muted">Daybook stores metric values; apps use these to show them to you.</p>
${IMPERIAL.map(([name, label]) => box(name, label))}
<h2>Public profile (API version 1)</h2>
<label for="bio">Bio</label>
<textarea id="bio" name="bio" maxlength="1000">${values.bio}</textarea>
<label for="url">Website</label>
<input type="url" id="url" name="url" value="${values.url}" placeholder="https://…">
${box('private', 'Keep my profile private')}
<div class="actions"><button type="submit">Save profile</button></div>
</form>
<p class="muted"><a href="/settings/account">Download your data or delete your account</a>.</p>`,
  });
}

function settingsOf(user: User): ProfileSettings {
  const { first_name, last_name, avatar, timezone, bio, url, imperial_distance, imperial_weight, imperial_energy, imperial_liquid, imperial_temperature } =
    user;
  return {
    first_name,
    last_name,
    avatar,
    timezone,
    bio,
    url,
    private: user.private,
    imperial_distance,
    imperial_weight,
    imperial_energy,
    imperial_liquid,
    imperial_temperature,
  };
}

export function profilePages(router: Router, deps: Deps): void {
  router.get(
    '/settings/profile',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const user = await findUserById(deps.db, session.userId);
      if (!user) throw notFound('This account no longer exists.');
      profileForm(ctx, deps, session, settingsOf(user), ctx.query.saved === '1' ? { text: 'Your profile has been saved.', error: false } : undefined);
    }),
  );

  router.post(
    '/settings/profile',
    formPage(deps, async (ctx, session, form) => {
      const values: ProfileSettings = {
        first_name: field(form, 'first_name').trim(),
        last_name: field(form, 'last_name').trim(),
        avatar: field(form, 'avatar').trim(),
        timezone: field(form, 'timezone'),
        bio: field(form, 'bio'),
        url: field(form, 'url').trim(),
        private: checked(form, 'private'),
        imperial_distance: checked(form, 'imperial_distance'),
        imperial_weight: checked(form, 'imperial_weight'),
        imperial_energy: checked(form, 'imperial_energy'),
        imperial_liquid: checked(form, 'imperial_liquid'),
        imperial_temperature: checked(form, 'imperial_temperature'),
      };
      const problems = profileProblems(values);
      if (problems.length > 0) {
        const shown = { ...values, timezone: problems.some((p) => p.includes('timezone')) ? 'UTC' : values.timezone };
        return profileForm(ctx, deps, session, shown, { text: problems.join(' '), error: true }, 400);
      }
      await updateProfile(deps.db, session.userId, values);
      ctx.status = 303;
      ctx.redirect('/settings/profile?saved=1');
    }),
  );
}
