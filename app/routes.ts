import { type RouteConfig, index, route } from "@react-router/dev/routes";

// Every URL of the product, written out. Paths match case-insensitively (React Router's default),
// so /kids/1/DailyLogs/new, as the spec writes it, answers too.
export default [
  // ---- pages ----
  index("routes/home.tsx"),
  route("login", "routes/login.tsx"),
  route("signup", "routes/signup.tsx"),
  route("logout", "routes/logout.tsx"),
  route("my-kids-list", "routes/my-kids.tsx"),
  route("kids/add-new", "routes/kid-new.tsx"),
  route("kids/:kidId/update", "routes/kid-update.tsx"),
  route("kids/:kidId/dailyLogs", "routes/kid-moments.tsx"),
  route("kids/:kidId/dailyLogs/new", "routes/moment-new.tsx"),
  route("dailyLogs/:dailyLogId", "routes/moment.tsx"),
  route("dailyLogs/:dailyLogId/update", "routes/moment-update.tsx"),
  route("dailyLogs/:dailyLogId/social", "routes/moment-social.tsx"),
  route("current/friends", "routes/friends.tsx"),
  route("friendships/new", "routes/friend-search.tsx"),
  route("profile/picture", "routes/profile-picture.tsx"),
  route("invite/:token", "routes/invite.tsx"),
  route("login/email", "routes/login-email.tsx"),
  route("login/link/:token", "routes/login-link.tsx"),

  // ---- photos: the only way photo bytes leave the server ----
  route("images/:key/:file", "routes/images.ts"),

  // ---- JSON API (docs/api.md) ----
  route("api/auth", "routes/api/auth.ts"),
  route("api/auth/login", "routes/api/auth-login.ts"),
  route("api/auth/signup", "routes/api/auth-signup.ts"),
  route("api/auth/logout", "routes/api/auth-logout.ts"),
  route("api/auth/unauthorized", "routes/api/auth-unauthorized.ts"),
  route("api/auth/magic-link", "routes/api/auth-magic-link.ts"),
  route("api/invites", "routes/api/invites.ts"),
  route("api/invites/:id", "routes/api/invites-id.ts"),
  route("api/users/upload-profile-picture", "routes/api/users-upload-profile-picture.ts"),
  route("api/users/update-profile-picture", "routes/api/users-update-profile-picture.ts"),
  route("api/users/delete-profile-picture", "routes/api/users-delete-profile-picture.ts"),
  route("api/users/friends", "routes/api/users-friends.ts"),
  route("api/users/search", "routes/api/users-search.ts"),
  route("api/kids/current", "routes/api/kids-current.ts"),
  route("api/kids/new", "routes/api/kids-new.ts"),
  route("api/kids/:id", "routes/api/kids-id.ts"),
  route("api/kids/:kidId/daily_logs", "routes/api/kids-daily-logs.ts"),
  route("api/kids/:kidId/daily_logs/new", "routes/api/kids-daily-logs-new.ts"),
  route("api/daily_logs/:id", "routes/api/daily-logs-id.ts"),
  route("api/friendships/new", "routes/api/friendships-new.ts"),
  route("api/friendships/current", "routes/api/friendships-current.ts"),
  route("api/friendships/:id/update", "routes/api/friendships-update.ts"),
  route("api/friendships/:id", "routes/api/friendships-id.ts"),
  route("api/likes/:dailyLogId", "routes/api/likes.ts"),
  route("api/likes/:dailyLogId/like", "routes/api/likes-like.ts"),
  route("api/likes/:dailyLogId/unlike", "routes/api/likes-unlike.ts"),
  route("api/comments/:dailyLogId/comments", "routes/api/comments.ts"),
  route("api/comments/:dailyLogId/new-comment", "routes/api/comments-new.ts"),
  route("api/comments/:commentId/update", "routes/api/comments-update.ts"),
  route("api/comments/:commentId", "routes/api/comments-id.ts"),
  route("api/*", "routes/api/not-found.ts"),

  // ---- everything else ----
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
