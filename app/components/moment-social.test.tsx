import { renderToString } from "react-dom/server";
import { createRoutesStub } from "react-router";
import { describe, expect, it } from "vitest";
import { commenterName } from "./moment-comments";
import { MomentSocial } from "./moment-social";
import type { CommentView, MomentSocialData } from "~/models/social.server";

const comment = (over: Partial<CommentView>): CommentView => ({
  id: 1,
  firstName: "Ann",
  lastName: "Lee",
  username: "annlee",
  photo: null,
  comment: "So sweet",
  mine: false,
  edited: false,
  ...over,
});

function render(social: MomentSocialData, url: string, returnTo = url.split("#")[0]!) {
  const Stub = createRoutesStub([
    {
      path: "/kids/:kidId/dailyLogs",
      // biome-ignore lint/correctness/noComponentHookFactories: a route stub per render, closing over this test's data
      Component: () => <MomentSocial momentId={5} social={social} returnTo={returnTo} />,
    },
    {
      path: "/dailyLogs/:id",
      // biome-ignore lint/correctness/noComponentHookFactories: a route stub per render, closing over this test's data
      Component: () => <MomentSocial momentId={5} social={social} returnTo={returnTo} />,
    },
  ]);
  return renderToString(<Stub initialEntries={[url]} />);
}

const base: MomentSocialData = { likeCount: 0, likers: [], likedByMe: false, commentCount: 0, comments: [] };

describe("<MomentSocial> (server render, as without JavaScript)", () => {
  it("labels the counts: like/likes, comment/comments", () => {
    expect(render(base, "/kids/1/dailyLogs")).toContain("0 likes");
    expect(render(base, "/kids/1/dailyLogs")).toContain("0 comments");
    const one = render(
      { ...base, likeCount: 1, likers: ["bob"], commentCount: 1, comments: [comment({})] },
      "/kids/1/dailyLogs",
    );
    expect(one).toContain("1 like<");
    expect(one).toContain("1 comment<");
    const two = render(
      { ...base, likeCount: 2, likers: ["bob", "cy"], commentCount: 2, comments: [comment({}), comment({ id: 2 })] },
      "/kids/1/dailyLogs",
    );
    expect(two).toContain("2 likes");
    expect(two).toContain("2 comments");
  });

  it("the likers are a tooltip that describes the focusable count", () => {
    const html = render({ ...base, likeCount: 2, likers: ["bob", "cy"] }, "/kids/1/dailyLogs");
    expect(html).toMatch(/<button type="button" class="likers__button" aria-describedby="likers-5">2 likes<\/button>/);
    expect(html).toMatch(/<span role="tooltip" id="likers-5" class="likers__tip">Liked by bob, cy<\/span>/);
  });

  it("the like toggle is a form post with aria-pressed and the right intent", () => {
    const off = render(base, "/kids/1/dailyLogs?before=x");
    expect(off).toContain('action="/dailyLogs/5/social"');
    // the intent is the button's own name and value (one hidden field fewer per moment)
    expect(off).toMatch(/<button type="submit" value="like"[^>]* name="intent"/);
    expect(off).not.toContain('type="hidden" name="intent"');
    expect(off).toContain('name="returnTo" value="/kids/1/dailyLogs?before=x"');
    expect(off).toContain('aria-pressed="false"');
    expect(off).not.toContain("_fetcher");
    const on = render({ ...base, likeCount: 1, likers: ["me"], likedByMe: true }, "/kids/1/dailyLogs");
    expect(on).toMatch(/<button type="submit" value="unlike"[^>]* name="intent"/);
    expect(on).toContain('aria-pressed="true"');
    expect(on).toContain("like-button--on");
  });

  it("the comment section: open on the moment's page or when the URL asks; on lists a link that asks for it", () => {
    expect(render(base, "/dailyLogs/5")).toMatch(/<details class="social-comments" open="">/);
    expect(render(base, "/kids/1/dailyLogs?showComments=5")).toMatch(/<details class="social-comments" open="">/);
    // closed (docs/decisions/0037-kid-page-cost.md): neither the form nor the comments are
    // rendered, only the way to them, which keeps the page's other parameters
    const closed = { ...base, commentCount: 1, comments: [comment({ comment: "Not on the list" })] };
    for (const [url, href] of [
      ["/kids/1/dailyLogs", "/kids/1/dailyLogs?showComments=5#comments-5"],
      ["/kids/1/dailyLogs?showComments=6&before=x", "/kids/1/dailyLogs?before=x&amp;showComments=5#comments-5"],
    ] as const) {
      const html = render(closed, url);
      expect(html).toContain(
        `<a class="button button--small button--secondary comment-toggle" href="${href}">Comment</a>`,
      );
      expect(html).not.toContain("<details");
      expect(html).not.toContain("comment-new");
      expect(html).not.toContain("Not on the list");
      expect(html).toContain("1 comment<");
    }
  });

  it("each comment: icon, name (username when names are null), text; Edit/Delete for the author only", () => {
    const html = render(
      {
        ...base,
        commentCount: 2,
        comments: [
          comment({ id: 2, mine: true, comment: "mine" }),
          comment({ id: 1, firstName: null, lastName: null, username: "olduser" }),
        ],
      },
      "/kids/1/dailyLogs?showComments=5",
    );
    expect(html).toContain('id="comment-2"');
    expect(html).toContain("Ann Lee");
    expect(html).toContain("olduser");
    expect(html).toContain('class="photo-icon photo-icon--person comment__avatar"');
    expect(html.match(/>Edit</g)).toHaveLength(1);
    expect(html.match(/>Delete</g)).toHaveLength(1);
    expect(html).toContain('href="/kids/1/dailyLogs?editComment=2#comment-2"');
    expect(html).toContain('href="/kids/1/dailyLogs?confirm=delete-comment&amp;commentId=2"');
    expect(commenterName({ firstName: "A", lastName: null, username: "u" })).toBe("A");
  });

  it("the new-comment form: labelled textarea with the placeholder, a named send button, no-JS length cap", () => {
    const html = render(base, "/kids/1/dailyLogs?showComments=5");
    expect(html).toMatch(/<label for="comment-text-5" class="visually-hidden">Write a comment<\/label>/);
    expect(html).toContain('placeholder="Write a comment..."');
    expect(html).toContain('maxLength="1000"');
    expect(html).toMatch(/Send<\/span><span class="visually-hidden"> comment<\/span>/);
  });

  it("renders the edit form and its error from the URL (no JavaScript), only for the author", () => {
    const social = {
      ...base,
      commentCount: 2,
      comments: [comment({ id: 2, mine: true, comment: "mine" }), comment({ id: 1 })],
    };
    const html = render(social, "/kids/1/dailyLogs?editComment=2&commentError=5&commentReason=required");
    expect(html).toContain('name="intent" value="edit-comment"');
    expect(html).toContain('name="commentId" value="2"');
    expect(html).toMatch(
      /<textarea[^>]*id="comment-edit-2"[^>]*aria-invalid="true"[^>]*aria-describedby="comment-edit-error-2"[^>]*>mine<\/textarea>/,
    );
    expect(html).toContain("Comment is required");
    expect(html).toContain(">Update<");
    expect(html).toContain('href="/kids/1/dailyLogs#comment-2"');
    expect(render(social, "/kids/1/dailyLogs?editComment=1")).not.toContain("edit-comment");
  });

  it("shows a refused new comment's message beside the textarea", () => {
    const html = render(base, "/kids/1/dailyLogs?commentError=5&commentReason=too-long");
    expect(html).toContain("Comment can not be more than 1000 characters");
    expect(html).toContain('aria-describedby="comment-error-5"');
    expect(render(base, "/kids/1/dailyLogs?commentError=6&commentReason=too-long")).not.toContain("Comment can not be");
    expect(render(base, "/kids/1/dailyLogs?commentError=5&commentReason=<script>")).not.toContain("field-error");
  });

  it("the delete confirmation has a URL", () => {
    const social = { ...base, commentCount: 1, comments: [comment({ id: 2, mine: true })] };
    const html = render(social, "/kids/1/dailyLogs?confirm=delete-comment&commentId=2");
    for (const text of [
      "Confirm Delete Comment",
      "Are you sure you want to delete this comment?",
      "Yes (Delete Comment)",
      "No (Keep Comment)",
    ]) {
      expect(html).toContain(text);
    }
    expect(html).toContain('name="intent" value="delete-comment"');
    expect(html).toContain('name="returnTo" value="/kids/1/dailyLogs"');
    // not the author: no dialog
    const others = { ...base, commentCount: 1, comments: [comment({ id: 2 })] };
    expect(render(others, "/kids/1/dailyLogs?confirm=delete-comment&commentId=2")).not.toContain(
      "Confirm Delete Comment",
    );
  });

  it("links to the moment's page for comments a list leaves out", () => {
    const html = render({ ...base, commentCount: 9, comments: [comment({})] }, "/kids/1/dailyLogs?showComments=5");
    expect(html).toContain('href="/dailyLogs/5#comments-5"');
    expect(html).toContain("View all <!-- -->9 comments");
  });
});
