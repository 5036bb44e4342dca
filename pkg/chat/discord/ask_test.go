package discord_test

import (
	"slices"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/relay"
)

// askPart is an ask's last part: its buttons, and whom it pings.
func askPart(key, thread, text string, ping ...string) relay.Part {
	p := part(key, thread, text)
	p.Choices = []relay.Choice{{Data: bus.ChoiceData("01ASK", 0), Label: "Approve"}, {Data: bus.ChoiceData("01ASK", 1), Label: "Deny"}}
	p.Ping = ping
	return p
}

func TestAskPostsButtonsAndPingsOnlyItsUsers(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	root := r.root(t, "m0/0", "root")
	th, err := r.p.StartThread(ctx(t), root, "s")
	if err != nil {
		t.Fatal(err)
	}
	id, err := r.p.Post(ctx(t), askPart("ask/0", th, "May I run make?", user))
	if err != nil {
		t.Fatal(err)
	}
	got := r.f.Snapshot().In(th)
	if len(got) != 1 || got[0].ID != id {
		t.Fatalf("thread holds %+v", got)
	}
	m := got[0]
	if m.Content != "<@"+user+">\nMay I run make?" || string(m.AllowedMentions) != `{"parse":[],"users":["`+user+`"]}` {
		t.Errorf("content %q, allowed_mentions %s", m.Content, m.AllowedMentions)
	}
	want := [][]fakediscord.Button{{{CustomID: "01ASK:0", Label: "Approve", Style: 1}, {CustomID: "01ASK:1", Label: "Deny", Style: 2}}}
	if !slices.EqualFunc(m.Rows, want, slices.Equal) {
		t.Errorf("buttons %+v, want %+v", m.Rows, want)
	}

	if err := r.p.Edit(ctx(t), relay.EditRequest{Thread: th, RemoteID: id, Text: "May I run make?\n\nDecided: Approve, by Alice"}); err != nil {
		t.Fatal(err)
	}
	m = r.f.Snapshot().In(th)[0]
	if m.Buttons() != nil || m.Content != "May I run make?\n\nDecided: Approve, by Alice" || string(m.AllowedMentions) != `{"parse":[]}` {
		t.Errorf("after the edit: %q, buttons %q, allowed_mentions %s", m.Content, m.Buttons(), m.AllowedMentions)
	}
}

func TestLookupFindsAnAskByContentAndButtons(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	root := r.root(t, "m0/0", "root")
	th, err := r.p.StartThread(ctx(t), root, "s")
	if err != nil {
		t.Fatal(err)
	}
	old := func(p relay.Part) relay.Part {
		p.FirstAttempt = time.Now().Add(-10 * time.Minute) // past the nonce window: by content
		return p
	}
	// The same text, posted plainly: not the ask's part.
	plain := part("m1/0", th, "<@"+user+">\nMay I?")
	first, err := r.p.Post(ctx(t), plain)
	if err != nil {
		t.Fatal(err)
	}
	ask := askPart("ask/0", th, "May I?", user)
	if _, found, err := r.p.Lookup(ctx(t), old(ask), ""); err != nil || found {
		t.Fatalf("Lookup before the ask was posted = %v, %v; want not found", found, err)
	}
	want, err := r.p.Post(ctx(t), ask)
	if err != nil {
		t.Fatal(err)
	}
	if id, found, err := r.p.Lookup(ctx(t), old(ask), ""); err != nil || !found || id != want {
		t.Fatalf("Lookup = %s, %v, %v; want %s", id, found, err, want)
	}
	// Nor is the ask a plain part with its content.
	if _, found, err := r.p.Lookup(ctx(t), old(plain), first); err != nil || found {
		t.Fatalf("Lookup of a plain part after the first = %v, %v; want not found", found, err)
	}
}
