export { RequireUser } from './components/require-user';
export { SignInPrompt } from './components/sign-in-prompt';
export { SessionProvider, useSession, useUser, type Session, type ShellSession } from './session';
