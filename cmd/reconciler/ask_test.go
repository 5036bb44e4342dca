package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// The command line's own rules (a session, a timeout in range) are told
// before anything is written; a valid command line makes a valid ask:
// the default buttons, an action, expiring --timeout from now.
func TestAskMessage(t *testing.T) {
	now := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	flags := func(mod func(*askFlags)) *askFlags {
		f := &askFlags{session: "build-42", timeout: bus.DefaultTimeout, grace: expiryGrace, resync: inboxResync}
		if mod != nil {
			mod(f)
		}
		return f
	}
	for _, c := range []struct {
		name      string
		mod       func(*askFlags)
		choices   []string
		expiresAt string
		refused   string
	}{
		{name: "defaults", choices: []string{"Approve", "Deny"}, expiresAt: "2026-12-06T10:00:00.000Z"},
		{name: "choices in order", mod: func(f *askFlags) { f.choices = []string{"Ship", "Wait", "Abort"} },
			choices: []string{"Ship", "Wait", "Abort"}, expiresAt: "2026-12-06T10:00:00.000Z"},
		{name: "shortest timeout", mod: func(f *askFlags) { f.timeout = time.Second },
			choices: []string{"Approve", "Deny"}, expiresAt: "2026-12-06T09:00:01.000Z"},
		{name: "longest timeout", mod: func(f *askFlags) { f.timeout = 24 * time.Hour },
			choices: []string{"Approve", "Deny"}, expiresAt: "2026-12-07T09:00:00.000Z"},
		{name: "no session", mod: func(f *askFlags) { f.session = "" }, refused: "--session is required"},
		{name: "zero timeout", mod: func(f *askFlags) { f.timeout = 0 }, refused: "--timeout 0s: must be from 1s to 24h0m0s"},
		{name: "under a second", mod: func(f *askFlags) { f.timeout = 999 * time.Millisecond }, refused: "--timeout 999ms"},
		{name: "negative timeout", mod: func(f *askFlags) { f.timeout = -time.Hour }, refused: "--timeout -1h0m0s"},
		{name: "over a day", mod: func(f *askFlags) { f.timeout = 24*time.Hour + time.Millisecond }, refused: "--timeout 24h0m0.001s"},
		{name: "negative grace", mod: func(f *askFlags) { f.grace = -time.Second }, refused: "--expiry-grace"},
		{name: "no resync", mod: func(f *askFlags) { f.resync = 0 }, refused: "--resync-period"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := askMessage(flags(c.mod), "01JEX4S6ZQ0V3M7W9CD2H8KTRB", "Deploy?", now)
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("err %v, want one saying %q", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Event != bus.EventAsk || m.Level != bus.LevelAction || m.Session != "build-42" || m.Text != "Deploy?" ||
				!slices.Equal(m.Choices, c.choices) || m.ExpiresAt != c.expiresAt {
				t.Errorf("message %+v, want an action ask with choices %q expiring at %s", m, c.choices, c.expiresAt)
			}
			if errs := m.Validate(); len(errs) > 0 {
				t.Errorf("the ask is not a valid outbox message: %v", errs)
			}
		})
	}
}

// The default buttons are the bus's, never a copy the command could
// change under the bus's feet.
func TestAskDefaultChoicesAreNotShared(t *testing.T) {
	m, err := askMessage(&askFlags{session: "s", timeout: time.Hour, resync: time.Second}, "a1", "q", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	m.Choices[0] = "changed"
	if bus.DefaultChoices[0] != "Approve" {
		t.Fatalf("changing an ask's choices changed the defaults: %q", bus.DefaultChoices)
	}
}

func TestDecisionOf(t *testing.T) {
	reply := bus.InboxMessage{ID: "1311", Session: "s", User: "U1", Text: "a1", TS: "2026-12-06T09:00:00.000Z"}
	other := bus.Decision("s", "a2", "Deny", "U1", time.Date(2026, 12, 6, 9, 0, 1, 0, time.UTC))
	mine := bus.Decision("s", "a1", "Approve", "U2", time.Date(2026, 12, 6, 9, 0, 2, 0, time.UTC))
	for _, c := range []struct {
		name string
		msgs []bus.InboxMessage
		ok   bool
	}{
		{"none", nil, false},
		{"a reply whose text is the id is no decision", []bus.InboxMessage{reply}, false},
		{"another ask's decision", []bus.InboxMessage{reply, other}, false},
		{"its decision among others", []bus.InboxMessage{reply, other, mine}, true},
	} {
		got, ok := decisionOf(c.msgs, "a1")
		if ok != c.ok || (ok && got.Choice != "Approve") {
			t.Errorf("%s: %+v, %v; want found %v", c.name, got, ok, c.ok)
		}
	}
}

// The inbox shows a decision on a reply's line, its choice where the
// text is; an expiry names no one.
func TestInboxTextLine(t *testing.T) {
	at := time.Date(2026, 12, 6, 9, 12, 40, 118e6, time.UTC)
	for _, c := range []struct {
		m    bus.InboxMessage
		want string
	}{
		{bus.InboxMessage{ID: "1311", Session: "build-42", User: "U1", Text: "ship\nit \x1b[2J", TS: "2026-12-06T09:10:02.004Z"},
			"2026-12-06T09:10:02.004Z  build-42  U1  ship\\nit \\x1b[2J\n"},
		{bus.Decision("build-42", "01JEX4", "Approve", "U1", at),
			"2026-12-06T09:12:40.118Z  build-42  U1  decided: Approve (ask 01JEX4)\n"},
		{bus.Decision("build-42", "01JEX5", bus.ChoiceExpired, "", at),
			"2026-12-06T09:12:40.118Z  build-42  -  expired: nobody decided (ask 01JEX5)\n"},
	} {
		if got := inboxTextLine(c.m); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.m, got, c.want)
		}
	}
}
