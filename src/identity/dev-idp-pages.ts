import type { Configuration } from './oidc-provider-types';

/**
 * The development issuer's own pages (errors, sign-out), plain HTML with no outside fonts.
 * Given here because oidc-provider's defaults announce on the console, the first time each
 * one shows, that a deployment should replace them.
 */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

export const renderError: NonNullable<Configuration['renderError']> = (ctx, out) => {
  ctx.type = 'html';
  const lines = Object.entries(out).map(([key, value]) => `<p><strong>${escapeHtml(key)}</strong>: ${escapeHtml(String(value))}</p>`);
  ctx.body = page('Sign-in failed', lines.join(''));
};

type RpInitiatedLogout = NonNullable<NonNullable<Configuration['features']>['rpInitiatedLogout']>;

export const logoutSource: NonNullable<RpInitiatedLogout['logoutSource']> = (ctx, form) => {
  ctx.type = 'html';
  ctx.body = page(
    'Sign out',
    `${form}<p>Sign out of the development issuer too?</p><button type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign out</button> <button type="submit" form="op.logoutForm">No, stay signed in</button>`,
  );
};

export const postLogoutSuccessSource: NonNullable<RpInitiatedLogout['postLogoutSuccessSource']> = (ctx) => {
  ctx.type = 'html';
  ctx.body = page('Signed out', '<p>You are signed out.</p>');
};
