package fakediscord_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

const eyes = "👀"

func TestReactionsThroughDiscordgo(t *testing.T) {
	t.Parallel()
	const second = "token-second"
	f := start(t, fakediscord.Options{Tokens: []string{token, second}, Channels: []string{channel}})
	s := newSession(t, f, token)
	s.SyncEvents = true
	s.Identify.Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages | discordgo.IntentsGuildMessageReactions
	added := make(chan *discordgo.MessageReactionAdd, 10)
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.MessageReactionAdd) { added <- r })
	created := messages(s)
	if err := open(t, s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })

	th, err := s.ThreadStart(channel, "session-1", discordgo.ChannelTypeGuildPublicThread, 60)
	if err != nil {
		t.Fatal(err)
	}
	human, err := f.InjectMessage(th.ID, user, "please look")
	if err != nil {
		t.Fatal(err)
	}
	me := fakediscord.BotUserID(token)
	if err := s.MessageReactionAdd(th.ID, human.ID, eyes); err != nil {
		t.Fatalf("MessageReactionAdd: %v", err)
	}
	r := receive(t, added, "MESSAGE_REACTION_ADD", func(*discordgo.MessageReactionAdd) bool { return true })
	if r.UserID != me || r.MessageID != human.ID || r.ChannelID != th.ID || r.GuildID != f.GuildID() || r.Emoji.Name != eyes || r.Emoji.ID != "" {
		t.Fatalf("MESSAGE_REACTION_ADD = %+v", r.MessageReaction)
	}
	// Adding it again is 204 too and adds nothing.
	if err := s.MessageReactionAdd(th.ID, human.ID, eyes); err != nil {
		t.Fatalf("second MessageReactionAdd: %v", err)
	}
	if got := f.Snapshot().In(th.ID)[0].Reactions; !slices.Equal(got, []fakediscord.Reaction{{Emoji: eyes, UserID: me}}) {
		t.Fatalf("reactions after two PUTs = %+v", got)
	}

	// Another bot's reaction counts; "me" is each caller's own.
	other := newSession(t, f, second)
	if err := other.MessageReactionAdd(th.ID, human.ID, eyes); err != nil {
		t.Fatal(err)
	}
	if err := other.MessageReactionAdd(th.ID, human.ID, "#⃣"); err != nil { // discordgo escapes the #
		t.Fatalf("keycap reaction: %v", err)
	}
	for _, x := range []struct {
		s     *discordgo.Session
		meKey bool
	}{{s, false}, {other, true}} {
		got, err := x.s.ChannelMessage(th.ID, human.ID)
		if err != nil || len(got.Reactions) != 2 {
			t.Fatalf("message with reactions = %+v, %v", got, err)
		}
		e, k := got.Reactions[0], got.Reactions[1]
		if e.Emoji.Name != eyes || e.Count != 2 || !e.Me || k.Emoji.Name != "#⃣" || k.Count != 1 || k.Me != x.meKey {
			t.Fatalf("reactions as seen = %+v %+v, %+v %+v", e, e.Emoji, k, k.Emoji)
		}
	}
	hist, err := s.ChannelMessages(th.ID, 1, "", "", "")
	if err != nil || len(hist) != 1 || len(hist[0].Reactions) != 2 {
		t.Fatalf("history carries no reactions: %+v, %v", hist, err)
	}
	// One stored per emoji and user.
	if n := len(f.Snapshot().In(th.ID)[0].Reactions); n != 3 {
		t.Fatalf("%d reactions stored, want 3", n)
	}
	// A message without reactions has no reactions field, as on Discord.
	own, err := s.ChannelMessageSend(th.ID, "no reactions here")
	if err != nil || own.Reactions != nil {
		t.Fatalf("fresh message = %+v, %v", own, err)
	}
	receive(t, created, "own message echoed", func(m *discordgo.MessageCreate) bool { return m.ID == own.ID })

	t.Run("errors", func(t *testing.T) {
		wantREST(t, s.MessageReactionAdd("999", human.ID, eyes), http.StatusNotFound, discordgo.ErrCodeUnknownChannel)
		wantREST(t, s.MessageReactionAdd(th.ID, "1", eyes), http.StatusNotFound, discordgo.ErrCodeUnknownMessage)
		// A message is looked up in the channel the URL names.
		wantREST(t, s.MessageReactionAdd(channel, human.ID, eyes), http.StatusNotFound, discordgo.ErrCodeUnknownMessage)
		for _, bad := range []string{"eyes", ":eyes:", "custom:123456789012345678", "a👀"} {
			wantREST(t, s.MessageReactionAdd(th.ID, human.ID, bad), http.StatusBadRequest, discordgo.ErrCodeUnknownEmoji)
		}
		yes := true
		if _, err := s.ChannelEdit(th.ID, &discordgo.ChannelEdit{Archived: &yes}); err != nil {
			t.Fatal(err)
		}
		wantREST(t, s.MessageReactionAdd(th.ID, human.ID, "✅"), http.StatusBadRequest, discordgo.ErrCodePerformedOperationOnArchivedThread)
		if tt, _ := f.Snapshot().Thread(th.ID); !tt.Archived {
			t.Fatal("a reaction unarchived the thread")
		}
		no := false
		if _, err := s.ChannelEdit(th.ID, &discordgo.ChannelEdit{Archived: &no}); err != nil {
			t.Fatal(err)
		}
		if n := len(f.Snapshot().In(th.ID)[0].Reactions); n != 3 {
			t.Fatalf("failed PUTs stored reactions: %d", n)
		}
	})

	t.Run("auth, route limit and slow answers apply", func(t *testing.T) {
		path := "/api/v9/channels/" + th.ID + "/messages/" + human.ID + "/reactions/" + url.PathEscape("✅") + "/@me"
		if code, _ := put(t, f, "wrong", path); code != http.StatusUnauthorized {
			t.Fatalf("PUT with a bad token: %d", code)
		}
		f.SetRouteLimit(1, time.Minute)
		code, hdr := put(t, f, token, path)
		if code != http.StatusNoContent || hdr.Get("X-RateLimit-Limit") != "1" || hdr.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("first PUT: %d %v", code, hdr)
		}
		// The bucket is the channel's: another message and emoji share it.
		other := "/api/v9/channels/" + th.ID + "/messages/" + own.ID + "/reactions/" + url.PathEscape(eyes) + "/@me"
		if code, hdr := put(t, f, token, other); code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" {
			t.Fatalf("PUT past the limit: %d %v", code, hdr)
		}
		f.SetRouteLimit(0, 0)

		const slow = 200 * time.Millisecond
		f.SetSlow(slow)
		began := time.Now()
		if err := s.MessageReactionAdd(th.ID, own.ID, eyes); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(began); took < slow {
			t.Fatalf("slow PUT answered in %s", took)
		}
		f.SetSlow(0)
		snap := f.Snapshot()
		if snap.RateLimited != 1 || len(snap.In(th.ID)[0].Reactions) != 4 || len(snap.In(th.ID)[1].Reactions) != 1 {
			t.Fatalf("after limited and slow PUTs: %d 429s, reactions %+v", snap.RateLimited, snap.In(th.ID))
		}
	})
}

// put sends a bodyless PUT as discordgo would, without its rate limiter.
func put(t *testing.T, f *fakediscord.Server, tok, path string) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, f.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bot "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header
}
