// What every request carries once the app's middleware has run: who is asking, in which language.
import type { Locale, T } from '../i18n/index.ts';

export type Role = 'admin' | 'expert' | 'viewer';

export interface CurrentUser {
  id: number;
  email: string;
  name: string;
  role: Role;
  locale: Locale | null;
}

declare module 'express-session' {
  interface SessionData {
    userId?: number;
    csrf?: string;
    flash?: string;
  }
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      user: CurrentUser | null;
      t: T;
      locale: Locale;
      csrfToken: string;
    }
  }
}

export {};
