import { ApiError, ConsoleConnection, type Session, type SignIn } from './api.ts';
import { field, h, input } from './dom.ts';
import { act, messageBox, type View, type ViewContext } from './ui.ts';
import { apiKeysView } from './views/api-keys.ts';
import { auditView } from './views/audit.ts';
import { channelsView } from './views/channels.ts';
import { evidenceView } from './views/evidence.ts';
import { exportsView } from './views/exports.ts';
import { overviewView } from './views/overview.ts';
import { webhooksView } from './views/webhooks.ts';

/**
 * The views and their navigation links, whose texts are fixed (docs/decisions/console.md, "Pages");
 * Overview first.
 */
const VIEWS: { path: string; label: string; view: View }[] = [
  { path: 'overview', label: 'Overview', view: overviewView },
  { path: 'api-keys', label: 'API keys', view: apiKeysView },
  { path: 'channels', label: 'Channels', view: channelsView },
  { path: 'evidence', label: 'Evidence', view: evidenceView },
  { path: 'exports', label: 'Exports', view: exportsView },
  { path: 'webhooks', label: 'Webhooks', view: webhooksView },
  { path: 'audit-log', label: 'Audit log', view: auditView },
];

/**
 * The view and its parameters from the address: `#/channels/ch_…` is the Channels view with that
 * channel open, so every view (and an open channel) has a URL to reload, bookmark or share.
 */
function route(): string[] {
  const [path, ...params] = (location.hash.replace(/^#\//, '') || 'overview').split('/');
  return [path, ...params.map(decodeURIComponent)];
}

/** The console on one page: its session, its connection to the service, and what its views keep. */
class ConsoleApp {
  private session: Session | null = null;
  /** Which render is the latest: one that finishes after a newer one began leaves the page alone. */
  private renderCount = 0;
  /** What the views keep across redraws (ViewContext.kept), for this page's console. */
  private readonly kept = new Map<string, object>();
  private readonly connection = new ConsoleConnection(() => this.signInAgain());

  constructor(private readonly app: HTMLElement) {}

  run() {
    window.addEventListener('hashchange', () => void this.render());
    this.connection.currentSession().then(
      ({ data }) => this.start(data),
      () => this.signInPage(),
    );
  }

  private signInPage(message?: string) {
    document.title = 'Sign in · consent-service';
    const box = messageBox();
    if (message) box.ok(message);
    const email = input('email', { type: 'email', autocomplete: 'username', required: true });
    const password = input('password', {
      type: 'password',
      autocomplete: 'current-password',
      required: true,
    });
    // Added only when the email belongs to several organizations and the password matched.
    const organization = input('organizationId', { autocomplete: 'organization' });
    const orgField = field('Organization ID', organization, 'You belong to several organizations: pick one.');
    const submit = h('button', { type: 'submit' }, 'Sign in');
    const form = h(
      'form',
      { class: 'stack', 'aria-labelledby': 'sign-in-title' },
      field('Email', email),
      field('Password', password),
      submit,
      box,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void act(box, submit, async () => {
        try {
          const body: SignIn = { email: email.value, password: password.value };
          if (organization.value.trim()) body.organizationId = organization.value.trim();
          const { data } = await this.connection.signIn(body);
          this.start(data);
        } catch (error) {
          if (error instanceof ApiError && error.body.organizations && !orgField.isConnected)
            password.parentElement?.after(orgField);
          password.value = '';
          throw error;
        }
      });
    });
    this.app.replaceChildren(
      h('main', { class: 'sign-in' }, h('h1', { id: 'sign-in-title' }, 'Sign in to consent-service'), form),
    );
    email.focus();
  }

  private start(s: Session) {
    this.session = s;
    this.connection.setCsrfToken(s.csrfToken);
    if (!location.hash) location.hash = '#/overview';
    else void this.render();
  }

  private header(s: Session): HTMLElement {
    const env = h(
      'select',
      { name: 'environment', class: `env env-${s.environment}` },
      h('option', { value: 'test' }, 'Test data'),
      h('option', { value: 'live' }, 'Live data'),
    );
    env.value = s.environment;
    const box = messageBox();
    env.addEventListener('change', () =>
      act(box, null, async () => {
        const { data } = await this.connection.switchEnvironment(env.value as Session['environment']);
        this.start(data);
      }),
    );
    const signOutButton = h('button', { type: 'button', class: 'link' }, 'Sign out');
    signOutButton.addEventListener('click', () =>
      act(box, signOutButton, async () => {
        await this.connection.signOut();
        this.session = null;
        this.signInPage('You are signed out.');
      }),
    );
    const [current] = route();
    return h(
      'header',
      { class: `top env-${s.environment}` },
      h(
        'div',
        { class: 'brand' },
        h('strong', {}, s.organization.name),
        h('span', {}, `${s.member.email} · ${s.member.role}`),
      ),
      h('label', { class: 'env-switch' }, h('span', {}, 'Environment'), env),
      signOutButton,
      box,
      h(
        'nav',
        { 'aria-label': 'Console' },
        h(
          'ul',
          {},
          ...VIEWS.map((v) =>
            h(
              'li',
              {},
              // The current view's link reloads it: the same address fires no hashchange.
              h(
                'a',
                {
                  href: `#/${v.path}`,
                  'aria-current': v.path === current ? 'page' : null,
                  onclick: () => v.path === current && void this.render(),
                },
                v.label,
              ),
            ),
          ),
        ),
      ),
    );
  }

  private async render() {
    if (!this.session) return;
    const s = this.session;
    const [path, ...params] = route();
    const entry = VIEWS.find((v) => v.path === path) ?? VIEWS[0];
    const main = h('main', { id: 'main', tabindex: -1 }, h('p', { class: 'loading' }, 'Loading…'));
    this.app.replaceChildren(
      h('a', { href: '#main', class: 'skip' }, 'Skip to content'),
      this.header(s),
      main,
    );
    document.title = `${entry.label} · consent-service`;
    const mine = ++this.renderCount;
    const ctx: ViewContext = {
      session: s,
      can: (scope) => s.scopes.includes(scope),
      refresh: () => void this.render(),
      params,
      kept: <T extends object>(name: string, initial: () => T) => {
        if (!this.kept.has(name)) this.kept.set(name, initial());
        return this.kept.get(name) as T;
      },
    };
    try {
      const content = await entry.view(ctx);
      if (mine === this.renderCount) main.replaceChildren(content);
    } catch (error) {
      const box = messageBox();
      box.show(error);
      if (mine === this.renderCount) main.replaceChildren(h('h1', {}, entry.label), box);
    }
  }

  /**
   * The session ended while a view was open: the view stays as it is (a half-filled form keeps what
   * was typed), and a sign-in form above it brings the session back without redrawing the view, so
   * the reader can send the change again.
   */
  private signInAgain() {
    const s = this.session;
    this.session = null;
    const main = document.getElementById('main');
    if (!s || !main) return this.signInPage('Your session has ended. Sign in again.');
    if (document.getElementById('sign-in-again')) return;
    const box = messageBox();
    const password = input('password', {
      type: 'password',
      autocomplete: 'current-password',
      required: true,
    });
    const submit = h('button', { type: 'submit' }, 'Sign in again');
    const panel = h(
      'form',
      { id: 'sign-in-again', class: 'card sign-in-again stack', 'aria-labelledby': 'sign-in-again-title' },
      h('h2', { id: 'sign-in-again-title' }, 'Your session has ended'),
      h(
        'p',
        { class: 'message error', role: 'alert' },
        `Nothing was saved since. Sign in again as ${s.member.email}; the page below keeps what you typed.`,
      ),
      field('Password', password),
      submit,
      box,
    );
    panel.addEventListener('submit', (event) => {
      event.preventDefault();
      void act(box, submit, async () => {
        const { data } = await this.connection.signIn({
          email: s.member.email,
          password: password.value,
          organizationId: s.organization.id,
        });
        this.session = data;
        this.connection.setCsrfToken(data.csrfToken);
        panel.remove();
      });
    });
    main.before(panel);
    password.focus();
  }
}

new ConsoleApp(document.getElementById('app') as HTMLElement).run();
