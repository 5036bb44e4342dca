package fakediscord_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// The behaviours the relay relies on, each seen through discordgo as it
// would see Discord.

func wantREST(t *testing.T, err error, status, code int) {
	t.Helper()
	var re *discordgo.RESTError
	if !errors.As(err, &re) || re.Response.StatusCode != status || re.Message == nil || re.Message.Code != code {
		t.Fatalf("err = %v, want a RESTError %d with code %d", err, status, code)
	}
}

func TestNonceWithEnforceNonce(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token, "other"}, Channels: []string{channel}})
	s := newSession(t, f, token)
	post := func(s *discordgo.Session, nonce string) (*discordgo.Message, map[string]any) {
		t.Helper()
		body, err := s.Request(http.MethodPost, discordgo.EndpointChannelMessages(channel),
			map[string]any{"content": "hi", "nonce": nonce, "enforce_nonce": true})
		if err != nil {
			t.Fatal(err)
		}
		var m discordgo.Message
		var raw map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal(body, &raw)
		return &m, raw
	}
	first, raw := post(s, "n-1")
	if raw["nonce"] != "n-1" {
		t.Errorf("create answer nonce = %v, want it echoed", raw["nonce"])
	}
	again, _ := post(s, "n-1")
	other, _ := post(newSession(t, f, "other"), "n-1")
	if again.ID != first.ID || other.ID == first.ID {
		t.Fatalf("ids %s, %s, other bot %s: want the repeat to return the first, another author to post", first.ID, again.ID, other.ID)
	}
	if n := len(f.Snapshot().Messages); n != 2 {
		t.Fatalf("fake holds %d messages, want 2", n)
	}

	// Fetched messages never carry the nonce.
	body, err := s.Request(http.MethodGet, discordgo.EndpointChannelMessages(channel)+"?limit=10", nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), "nonce") {
		t.Errorf("history carries a nonce: %s", body)
	}
	if msgs, err := s.ChannelMessages(channel, 10, "", "", ""); err != nil || len(msgs) != 2 {
		t.Fatalf("ChannelMessages = %d, %v", len(msgs), err)
	}

	// Past the window the nonce is free again. Nothing signals the window's
	// end but time itself.
	const window = 50 * time.Millisecond
	short := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}, NonceWindow: window})
	ss := newSession(t, short, token)
	old, err := ss.Request(http.MethodPost, discordgo.EndpointChannelMessages(channel), map[string]any{"content": "a", "nonce": "n-2", "enforce_nonce": true})
	if err != nil {
		t.Fatal(err)
	}
	<-time.After(window + 10*time.Millisecond)
	late, err := ss.Request(http.MethodPost, discordgo.EndpointChannelMessages(channel), map[string]any{"content": "a", "nonce": "n-2", "enforce_nonce": true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(short.Snapshot().Messages); n != 2 || string(old) == string(late) {
		t.Errorf("a nonce past its window: %d messages, want 2", n)
	}
	if sn := short.Snapshot(); sn.Relayed != 1 || !slices.Equal(sn.Duplicates, []string{"n-2"}) {
		t.Errorf("the oracle: %d relayed, duplicates %q; want 1 and the nonce past its window", sn.Relayed, sn.Duplicates)
	}

	// ChannelMessageSendComplex's answer decodes and what it sent is recorded.
	m, err := s.ChannelMessageSendComplex(channel, &discordgo.MessageSend{
		Content: "x", AllowedMentions: &discordgo.MessageAllowedMentions{}, Flags: discordgo.MessageFlagsSuppressEmbeds,
	})
	if err != nil || m.Content != "x" {
		t.Fatalf("ChannelMessageSendComplex = %+v, %v", m, err)
	}
	snap := f.Snapshot()
	got := snap.Messages[len(snap.Messages)-1]
	if string(got.AllowedMentions) != `{"parse":null,"replied_user":false}` || got.Flags != 4 {
		t.Errorf("recorded allowed_mentions %s flags %d", got.AllowedMentions, got.Flags)
	}
}

func TestEditsThreadsArchiveThroughDiscordgo(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token, "other"}, Channels: []string{channel}})
	s := newSession(t, f, token)
	root, err := s.ChannelMessageSend(channel, "root")
	if err != nil {
		t.Fatal(err)
	}
	edited, err := s.ChannelMessageEditComplex(discordgo.NewMessageEdit(channel, root.ID).SetContent("root, edited"))
	if err != nil || edited.Content != "root, edited" || edited.EditedTimestamp == nil {
		t.Fatalf("edit = %+v, %v", edited, err)
	}
	_, err = newSession(t, f, "other").ChannelMessageEdit(channel, root.ID, "not mine")
	wantREST(t, err, http.StatusForbidden, discordgo.ErrCodeCannotEditFromAnotherUser)
	if m := f.Snapshot().Messages[0]; m.Content != "root, edited" || len(m.Edits) != 1 || m.Edits[0] != "root" {
		t.Fatalf("stored %+v", m)
	}

	th, err := s.MessageThreadStartComplex(channel, root.ID, &discordgo.ThreadStart{Name: "s", AutoArchiveDuration: 60})
	if err != nil || th.ID != root.ID {
		t.Fatalf("thread = %+v, %v", th, err)
	}
	_, err = s.MessageThreadStartComplex(channel, root.ID, &discordgo.ThreadStart{Name: "s"})
	wantREST(t, err, http.StatusBadRequest, discordgo.ErrCodeThreadAlreadyCreatedForThisMessage)

	yes, no := true, false
	// Archived but not locked: a post unarchives it.
	if _, err := s.ChannelEdit(th.ID, &discordgo.ChannelEdit{Archived: &yes, Locked: &no}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ChannelMessageSend(th.ID, "wakes it"); err != nil {
		t.Fatal(err)
	}
	if tt, _ := f.Snapshot().Thread(th.ID); tt.Archived {
		t.Fatal("a post left the thread archived")
	}
	ch, err := s.ChannelEdit(th.ID, &discordgo.ChannelEdit{Archived: &yes, Locked: &yes})
	if err != nil || ch.ThreadMetadata == nil || !ch.ThreadMetadata.Archived || !ch.ThreadMetadata.Locked {
		t.Fatalf("ChannelEdit = %+v, %v", ch, err)
	}
	_, err = s.ChannelMessageSend(th.ID, "too late")
	wantREST(t, err, http.StatusBadRequest, discordgo.ErrCodePerformedOperationOnArchivedThread)
}

func TestRouteLimitsThroughDiscordgo(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}})
	// discordgo's bucket limiter reads the headers as Discord's: a burst is
	// paced, no 429.
	f.SetRouteLimit(2, 200*time.Millisecond)
	s := newSession(t, f, token)
	for range 5 {
		if _, err := s.ChannelMessageSend(channel, "paced"); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.Snapshot().RateLimited; n != 0 {
		t.Fatalf("%d 429s for a paced burst", n)
	}

	// A second client that does not know the bucket meets the limit: with
	// retries off, discordgo returns its RateLimitError.
	f.SetRouteLimit(2, time.Minute)
	for range 2 {
		if _, err := s.ChannelMessageSend(channel, "fills the window"); err != nil {
			t.Fatal(err)
		}
	}
	b := newSession(t, f, token)
	b.ShouldRetryOnRateLimit = false
	_, err := b.ChannelMessageSend(channel, "over")
	var rl *discordgo.RateLimitError
	if !errors.As(err, &rl) || rl.RetryAfter <= 0 || rl.RetryAfter > time.Minute {
		t.Fatalf("err = %v, want a RateLimitError with retry_after in (0, 1m]", err)
	}
	// Another route (the same channel, GET) has its own bucket. (Not the
	// history: discordgo keys buckets by URL alone, so after this 429 it
	// would sleep a minute, uncancellably, before reading the history.)
	if _, err := b.Channel(channel); err != nil {
		t.Fatalf("another route: %v", err)
	}
	if snap := f.Snapshot(); snap.RateLimited != 1 || len(snap.Messages) != 7 {
		t.Fatalf("%d 429s, %d messages; want 1 and 7", snap.RateLimited, len(snap.Messages))
	}
}

func TestAcceptThenFailThroughDiscordgo(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}})
	s := newSession(t, f, token)

	// discordgo's default re-sends a POST answered 502: the message doubles.
	f.AcceptThenFail(1, fakediscord.FailBadGateway)
	if _, err := s.ChannelMessageSend(channel, "doubled"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.Snapshot().In(channel)); n != 2 {
		t.Fatalf("default retries: %d messages, want the 2 a blind retry makes", n)
	}

	f.AcceptThenFail(1, fakediscord.FailBadGateway)
	_, err := s.ChannelMessageSend(channel, "once", discordgo.WithRestRetries(0))
	if err == nil || !strings.Contains(err.Error(), "502") {
		t.Fatalf("err = %v, want the 502", err)
	}
	f.AcceptThenFail(1, fakediscord.FailCut)
	_, err = s.ChannelMessageSend(channel, "cut")
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a transport error", err)
	}
	snap := f.Snapshot()
	if n := len(snap.Messages); n != 4 || snap.Messages[2].Content != "once" || snap.Messages[3].Content != "cut" {
		t.Fatalf("messages %+v: want each failed answer's message stored once", snap.Messages)
	}
}

func TestHoldSlowUnknownThroughDiscordgo(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}})
	s := newSession(t, f, token)

	f.HoldPosts()
	errc := make(chan error, 1)
	go func() {
		_, err := s.ChannelMessageSend(channel, "held")
		errc <- err
	}()
	waitFor(t, f, "a held POST", func(sn fakediscord.Snapshot) bool { return sn.Held == 1 })
	if n := len(f.Snapshot().Messages); n != 0 {
		t.Fatalf("a held POST stored %d messages", n)
	}
	f.Release()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if n := len(f.Snapshot().Messages); n != 1 {
		t.Fatalf("released: %d messages, want 1", n)
	}

	// A thread start is held the same way.
	root := f.Snapshot().Messages[0]
	f.HoldPosts()
	go func() {
		_, err := s.MessageThreadStartComplex(channel, root.ID, &discordgo.ThreadStart{Name: "s"})
		errc <- err
	}()
	waitFor(t, f, "a held thread start", func(sn fakediscord.Snapshot) bool { return sn.Held == 1 })
	if n := len(f.Snapshot().Threads); n != 0 {
		t.Fatalf("a held thread start made %d threads", n)
	}
	f.Release()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Snapshot().Thread(root.ID); !ok {
		t.Fatal("released thread start made no thread")
	}

	f.SetSlow(time.Minute)
	s.Client.Timeout = 200 * time.Millisecond
	_, err := s.ChannelMessageSend(channel, "slow")
	var ue *url.Error
	if !errors.As(err, &ue) || !ue.Timeout() {
		t.Fatalf("err = %v, want a client timeout", err)
	}
	f.SetSlow(0)
	s.Client.Timeout = 5 * time.Second
	if n := len(f.Snapshot().Messages); n != 2 {
		t.Fatalf("%d messages, want the slow one stored", n)
	}

	f.SetChannelUnknown(channel, true)
	_, err = s.Channel(channel)
	wantREST(t, err, http.StatusNotFound, discordgo.ErrCodeUnknownChannel)
	_, err = s.ChannelMessageSend(channel, "nowhere")
	wantREST(t, err, http.StatusNotFound, discordgo.ErrCodeUnknownChannel)
	f.SetChannelUnknown(channel, false)
	if _, err := s.Channel(channel); err != nil {
		t.Fatal(err)
	}
}
