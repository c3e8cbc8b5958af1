// Every table's row, as a read answers it on BOTH engines (docs/decisions/0046-typed-rows.md).
// Written once, from db/migrations; a column renamed or retyped there is changed here, and every
// query that selects it stops compiling until it follows. The row types are what knex hands back:
//  - ids and counts are numbers (PostgreSQL's 64-bit counts are parsed to numbers in db/knexfile.mjs);
//  - every *_at column is an ISO 8601 UTC text (nowIso), dates are "YYYY-MM-DD" texts;
//  - a boolean column is a Flag: SQLite stores 0/1, and PostgreSQL's booleans are parsed to 0/1 too
//    (db/knexfile.mjs), so a read compares with `=== 1` on either engine. Writes may pass true/false.
// The contract's name `daily_logs` stays the table's name; the type is called MomentRow.

/** A boolean column as read: 1 true, 0 false, on both engines. */
export type Flag = 0 | 1;

export type ImageKind = "user" | "kid" | "log";
export type AudienceValue = "us" | "family" | "everyone";
export type CircleValue = "family" | "friends";
export type RelationshipValue = "grandparent" | "parents_sibling" | "cousin" | "friend" | "caregiver" | "other";

export interface ImageRow {
  id: number;
  key: string;
  kind: ImageKind;
  owner_id: number;
  width: number;
  height: number;
  /** comma-separated derivative widths, e.g. "160,320,640,1280" */
  widths: string;
  placeholder: string;
  created_at: string;
  /** size of the full-size `original.jpg`; null: none (docs/decisions/0063-full-size-originals.md) */
  original_width: number | null;
  original_height: number | null;
}

export interface UserRow {
  id: number;
  username: string;
  username_normalized: string;
  email: string;
  email_normalized: string;
  first_name: string | null;
  last_name: string | null;
  password_hash: string;
  image_id: number | null;
  is_demo: Flag;
  created_at: string;
}

export interface SessionRow {
  id: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  user_agent: string | null;
  last_seen_at: string | null;
  handle: string | null;
  link_by: number | null;
  /** "link": started by a sign-in link (emailed, or a parent's when link_by is set); null: any other way */
  signed_in_by: "link" | null;
  /** the passkey that started the session (it ends when that passkey is removed) */
  passkey_id: number | null;
}

export interface KidRow {
  id: number;
  user_id: number;
  name: string;
  birth_date: string;
  relationship: "Mom" | "Dad" | "Grandpa" | "Grandma" | "Other";
  image_id: number | null;
  created_at: string;
  default_audience: AudienceValue;
  shown_to_friends: Flag;
}

/** `daily_logs`: a moment. */
export interface MomentRow {
  id: number;
  kid_id: number;
  title: string;
  content: string;
  image_id: number | null;
  created_at: string;
  updated_at: string;
  taken_on: string;
  milestone: string | null;
  audience: AudienceValue;
  posted_by: number | null;
  photo_count: number;
  video_count: number;
}

export interface MomentPhotoRow {
  id: number;
  daily_log_id: number;
  image_id: number;
  position: number;
  alt: string;
}

/** A photo chosen in a moment's form that waits for its alt text (docs/decisions/0067-one-photo-control.md). */
export interface PendingPhotoRow {
  image_id: number;
  uploader_id: number;
  kid_id: number;
  /** "YYYY-MM-DD" from its EXIF, read before processing dropped it; null: none */
  taken_on: string | null;
  created_at: string;
}

export type VideoStatus = "processing" | "ready" | "failed";

/** A clip of a moment (docs/decisions/0064-video-clips.md). */
export interface VideoRow {
  id: number;
  daily_log_id: number;
  position: number;
  description: string;
  status: VideoStatus;
  failure: string | null;
  key: string;
  source_key: string | null;
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  small_bytes: number | null;
  large_bytes: number | null;
  /** an images row of kind "log" (a moment's picture) that no moment_photos row lists */
  poster_image_id: number | null;
  captions: string | null;
  attempts: number;
  claimed_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface LikeRow {
  id: number;
  daily_log_id: number;
  user_id: number;
  created_at: string;
}

export interface CommentRow {
  id: number;
  daily_log_id: number;
  user_id: number;
  comment: string;
  created_at: string;
  updated_at: string;
  hidden: Flag;
}

export interface FriendshipRow {
  id: number;
  /** who asked */
  user_id: number;
  /** who was asked */
  friend_id: number;
  status: "pending" | "accepted" | "denied";
  /** generated: min(user_id, friend_id) */
  user_low: number;
  /** generated: max(user_id, friend_id) */
  user_high: number;
  created_at: string;
  updated_at: string;
  low_circle: CircleValue;
  high_circle: CircleValue;
  low_relationship: RelationshipValue | null;
  high_relationship: RelationshipValue | null;
}

export interface CoParentRow {
  id: number;
  kid_id: number;
  user_id: number;
  status: "pending" | "accepted";
  created_at: string;
}

export interface BlockRow {
  id: number;
  blocker_id: number;
  blocked_id: number;
  show_comments: Flag;
  created_at: string;
}

export interface SubmissionRow {
  id: number;
  user_id: number;
  action: string;
  token: string;
  fingerprint: string;
  result_id: number;
  created_at: string;
}

export interface RateLimitRow {
  key: string;
  count: number;
  window_ends_at: string;
}

export interface JobLeaseRow {
  name: string;
  holder: string;
  expires_at: string;
}

export interface MailMessageRow {
  id: number;
  message_id: string;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  headers_json: string | null;
  attachments_json: string | null;
  status: "queued" | "sending" | "sent";
  attempts: number;
  next_attempt_at: string;
  claim_token: string | null;
  claimed_until: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

export interface MailMessageUserRow {
  mail_message_id: number;
  user_id: number;
}

export interface InvitationRow {
  id: number;
  inviter_id: number;
  token_hash: string;
  note: string | null;
  email: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by: number | null;
  revoked_at: string | null;
  circle: CircleValue;
  relationship: RelationshipValue | null;
  offered_to: number | null;
  declined_at: string | null;
}

/** A kid an invitation makes its answer a co-parent of (docs/decisions/0060-co-parent-invitations.md). */
export interface InvitationKidRow {
  invitation_id: number;
  kid_id: number;
}

export interface SignInLinkRow {
  id: number;
  user_id: number;
  token_hash: string;
  purpose: "sign-in" | "reset" | "friend";
  created_by: number | null;
  invitation_id: number | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface NotificationRow {
  id: number;
  user_id: number;
  kind: string;
  actor_id: number;
  moment_id: number | null;
  created_at: string;
  read_at: string | null;
}

/** How one kind of news reaches a person by mail (docs/decisions/0062-*). */
export type Delivery = "off" | "digest" | "now";

export interface EmailPreferenceRow {
  user_id: number;
  /** The digest's frequency; "none" is a value of rows older than the per-kind choices. */
  digest: "none" | "daily" | "weekly";
  hour: number;
  moments: Delivery;
  comments: Delivery;
  replies: Delivery;
  next_digest_at: string | null;
  last_digest_at: string;
  updated_at: string;
}

export interface FeedVisitRow {
  user_id: number;
  seen_at: string;
  since: string | null;
}

export interface EmailChangeRow {
  id: number;
  user_id: number;
  old_email: string;
  new_email: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface InvitedAccountRow {
  user_id: number;
  inviter_id: number;
  links_closed_at: string | null;
}

export interface PasskeyRow {
  id: number;
  user_id: number;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export type ChallengePurpose = "register" | "sign-in";

export interface WebauthnChallengeRow {
  id: string;
  purpose: ChallengePurpose;
  user_id: number | null;
  challenge: string;
  expires_at: string;
}

/** Every table by its name in the database. */
export interface Tables {
  images: ImageRow;
  users: UserRow;
  sessions: SessionRow;
  kids: KidRow;
  daily_logs: MomentRow;
  moment_photos: MomentPhotoRow;
  pending_photos: PendingPhotoRow;
  videos: VideoRow;
  likes: LikeRow;
  comments: CommentRow;
  friendships: FriendshipRow;
  co_parents: CoParentRow;
  blocks: BlockRow;
  submissions: SubmissionRow;
  rate_limits: RateLimitRow;
  job_leases: JobLeaseRow;
  mail_messages: MailMessageRow;
  mail_message_users: MailMessageUserRow;
  invitations: InvitationRow;
  invitation_kids: InvitationKidRow;
  sign_in_links: SignInLinkRow;
  notifications: NotificationRow;
  email_preferences: EmailPreferenceRow;
  feed_visits: FeedVisitRow;
  email_changes: EmailChangeRow;
  invited_accounts: InvitedAccountRow;
  passkeys: PasskeyRow;
  webauthn_challenges: WebauthnChallengeRow;
}
