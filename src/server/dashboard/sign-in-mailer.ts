import type { SmtpConfig } from '../../config/parse-smtp.ts';

// Sends members' one-time sign-in links through the operator's SMTP server (nodemailer).
// nodemailer is loaded with the first mail, not at start: ~5 MB of heap that a gateway
// nobody signs in to by mail never needs (docs/operations.md, "Memory and GC").

export interface SignInMail {
  to: string;
  links: ReadonlyArray<{ account: string; url: string }>;
  minutes: number;
}

export type SendSignInMail = (mail: SignInMail) => Promise<void>;

type Transport = ReturnType<(typeof import('nodemailer'))['default']['createTransport']>;

export function smtpSender(smtp: SmtpConfig): SendSignInMail {
  let transport: Promise<Transport> | null = null;
  const made = (): Promise<Transport> =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        ...(smtp.user === null ? {} : { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
      }),
    ));
  return async (mail) => {
    const lines = mail.links.map((l) => `${l.account}: ${l.url}`);
    await (
      await made()
    ).sendMail({
      from: smtp.from,
      to: mail.to,
      subject: 'Your Switchyard sign-in link',
      text:
        `Sign in to the Switchyard dashboard (each link works once, for ${mail.minutes} minutes):\n\n${lines.join('\n')}\n\n` +
        'If you did not ask for this, ignore this mail.\n',
    });
  };
}
