import { useMutation } from '@tanstack/react-query';
import { apiFetch } from './client.ts';

/** Calls of the identity service (better-auth, mounted at /api/auth). */
export interface SignUpInput {
  email: string;
  password: string;
  name: string;
  businessName?: string;
  affiliateRef?: string;
}

export interface SignInInput {
  email: string;
  password: string;
}

export interface ChangePasswordInput {
  currentPassword: string;
  newPassword: string;
  revokeOtherSessions: boolean;
}

export function signUp(input: SignUpInput): Promise<unknown> {
  return apiFetch('/api/auth/sign-up/email', { method: 'POST', json: input });
}

export function signIn(input: SignInInput): Promise<unknown> {
  return apiFetch('/api/auth/sign-in/email', { method: 'POST', json: input });
}

/** Emails a one-time sign-in link (15 minutes) if an account has this address; the answer never says. */
export function requestSignInLink(email: string): Promise<unknown> {
  return apiFetch('/api/auth/sign-in/email-link', { method: 'POST', json: { email } });
}

/** Signs in with the token of an emailed link (the link's `#link=` fragment). */
export function signInWithLink(token: string): Promise<unknown> {
  return apiFetch('/api/auth/sign-in/email-link/verify', { method: 'POST', json: { token } });
}

export function signOut(): Promise<unknown> {
  // better-auth rejects a JSON POST without a body, so send an empty object.
  return apiFetch('/api/auth/sign-out', { method: 'POST', json: {} });
}

export function useChangePassword() {
  return useMutation({
    mutationFn: (input: ChangePasswordInput) =>
      apiFetch('/api/auth/change-password', { method: 'POST', json: input }),
  });
}
