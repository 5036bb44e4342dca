package telegram

import (
	"testing"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/relay"
)

// A post the service stored but whose answer was cut is found by the
// probe, under its id, by a process that never saw it.
func TestLookupFindsAPostWhoseAnswerWasLost(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	before := post(t, p, "m/0", "", "before")
	f.AcceptThenFail(1, faketelegram.FailCut)
	part := relay.Part{Key: "m/1", Text: "hello @carol"}
	if _, err := p.Post(ctxFor(t), part); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("Post = %v, want uncertain", err)
	}
	if _, err := f.InjectMessage(faketelegram.Inbound{From: faketelegram.User{ID: 42}, Text: "someone else"}); err != nil {
		t.Fatal(err)
	}
	id, found, err := newPoster(t, f).Lookup(ctxFor(t), part, before)
	if err != nil || !found {
		t.Fatalf("Lookup = %q %v %v, want found", id, found, err)
	}
	if m, _ := f.Snapshot().Message(faketelegram.DefaultChatID, id64(t, id)); m.Text != safeText(part.Text) || len(m.Edits) != 0 {
		t.Errorf("found %+v", m)
	}
}

// A post the service never stored is not found once the probe passed the
// top of the chat: it may be posted.
func TestLookupNotPosted(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	before := post(t, p, "m/0", "", "before")
	f.FailBefore("sendMessage", 1, faketelegram.FailCut)
	part := relay.Part{Key: "m/1", Text: "lost"}
	if _, err := p.Post(ctxFor(t), part); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("Post = %v, want uncertain", err)
	}
	if _, found, err := newPoster(t, f).Lookup(ctxFor(t), part, before); err != nil || found {
		t.Fatalf("Lookup = %v %v, want not found", found, err)
	}
}

// The probe never edits a message the relay confirmed for another part:
// a fresh process would otherwise overwrite it with this part's text.
func TestLookupLeavesConfirmedPartsAlone(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	before := post(t, p, "m/0", "", "before")
	other := post(t, p, "n/0", "", "another session's part")
	f.FailBefore("sendMessage", 1, faketelegram.FailCut)
	part := relay.Part{Key: "m/1", Text: "lost", Confirmed: func(id string) bool { return id == other }}
	if _, err := p.Post(ctxFor(t), part); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("Post = %v, want uncertain", err)
	}
	if _, found, err := newPoster(t, f).Lookup(ctxFor(t), part, before); err != nil || found {
		t.Fatalf("Lookup = %v %v, want not found", found, err)
	}
	if m, _ := f.Snapshot().Message(faketelegram.DefaultChatID, id64(t, other)); m.Text != "another session's part" || len(m.Edits) != 0 {
		t.Errorf("the probe edited a confirmed part: %+v", m)
	}
}

// A probe that edits a message of the bot's it did not know is
// undecided: the session waits, nothing is posted again.
func TestLookupUndecidedBlocks(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	before := post(t, p, "m/0", "", "before")
	post(t, p, "n/0", "", "unconfirmed other") // no Confirmed: as after a crash
	part := relay.Part{Key: "m/1", Text: "lost"}
	_, found, err := newPoster(t, f).Lookup(ctxFor(t), part, before)
	if found || relay.KindOf(err) != relay.Blocked {
		t.Fatalf("Lookup = %v %v, want blocked undecided", found, err)
	}
}
