import type { Role } from '../contract/index.js';

/** A person who signed in with OpenID Connect, as stored: who their provider says they are, and their role. */
export interface PersonRecord {
  /** Ours, `per_` and 12 characters: the actor of their changes in the audit. */
  id: string;
  issuer: string;
  /** The provider's `sub`, which never changes for a person; email and name may. */
  subject: string;
  email: string | null;
  name: string | null;
  /** The role their groups gave them at their last sign-in. */
  role: Role;
  firstSignInAt: string;
  lastSignInAt: string;
}

/** A person as a sign-in found them: what the ID token says, and the role their groups map to. */
export type PersonSignIn = Pick<PersonRecord, 'issuer' | 'subject' | 'email' | 'name' | 'role'>;

/** A person, with how many of their console sessions are live. */
export type PersonWithSessions = PersonRecord & { sessions: number };

/** Where people are kept: the storage implements it, so every instance knows everyone. */
export interface PeopleRepository {
  /**
   * Records a sign-in: a new person under `id` at their first, and their email, name, role and time of sign-in
   * updated at each one after; answers the person as stored.
   */
  signIn(person: PersonSignIn, at: string, id: string): Promise<PersonRecord>;
  find(id: string): Promise<PersonRecord | undefined>;
  /** Everyone, the latest sign-in first, with their sessions live at `now` (idle since `idleSince` at most). */
  list(now: string, idleSince: string): Promise<PersonWithSessions[]>;
  /** Everyone, without their sessions: who the audit's person actors are. */
  all(): Promise<PersonRecord[]>;
}

/**
 * A sign-in under way: what the browser's return from the provider must match. Kept in the store, so that the
 * provider may send the browser back to any instance; taken (deleted) by the first return that names it.
 */
export interface OidcLogin {
  /** The `state` sent to the provider: random, and the key of the row. */
  state: string;
  /** The digest of the value of the cookie the browser got when it set out: the return must bring it. */
  binding: string;
  /** PKCE: the verifier whose challenge the provider saw. */
  verifier: string;
  /** The `nonce` the ID token must carry. */
  nonce: string;
  createdAt: string;
}

export interface OidcLoginRepository {
  /** Keeps a sign-in under way, and forgets those started before `staleBefore`, which can no longer end. */
  put(login: OidcLogin, staleBefore: string): Promise<void>;
  /** The sign-in of a state, deleted as it is read: a second return with the same state finds nothing. */
  take(state: string): Promise<OidcLogin | undefined>;
}
