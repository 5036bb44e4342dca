package relay

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
)

// An ask's buttons ride on its last part only, the ping with them, and
// the inbound side is handed the ask, with the service id of that part,
// before the file leaves the outbox; its outcome edits it in place.
func TestAskPostsButtonsOnItsLastPart(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.render = RenderOptions{Verbose: true, Limit: 40, Ping: []string{"U1"}}
	var mu sync.Mutex
	type handed struct{ id, place, remote string }
	var got []handed
	ask := bus.Message{ID: "01JASK", Session: "s", Event: bus.EventAsk,
		Text:    strings.Repeat("long question ", 5), // two parts at 40
		Choices: []string{"Yes", "No"}, ExpiresAt: "2026-12-06T09:00:00.000Z"}
	h.send(bus.Message{ID: "01", Session: "s", Text: "before"})
	h.send(ask)
	h.askPosted = func(_ context.Context, m bus.Message, place, remote string) error {
		if _, err := os.Stat(filepath.Join(h.dirs.Sent, m.ID+".json")); err == nil {
			t.Errorf("ask %s handed after it left the outbox", m.ID)
		}
		mu.Lock()
		got = append(got, handed{m.ID, place, remote})
		mu.Unlock()
		return nil
	}
	h.start()
	h.waitFor("outbox drained", h.outboxEmpty)

	f.mu.Lock()
	var buttons [][]Choice
	var pings [][]string
	for _, c := range f.posts {
		buttons, pings = append(buttons, c.choices), append(pings, c.ping)
	}
	f.mu.Unlock()
	// root, "before", then the ask's parts: the last one alone carries
	// the buttons and the ping.
	want := []Choice{{Data: "01JASK:0", Label: "Yes"}, {Data: "01JASK:1", Label: "No"}}
	last := len(buttons) - 1
	if len(buttons) < 4 || !slices.Equal(buttons[last], want) || !slices.Equal(pings[last], []string{"U1"}) {
		t.Fatalf("posts carried buttons %v and pings %v, want the ask's last part to carry %v", buttons, pings, want)
	}
	for i := range last {
		if buttons[i] != nil || pings[i] != nil {
			t.Fatalf("post %d carried buttons %v, pings %v: only the ask's last part may", i, buttons[i], pings[i])
		}
	}
	th := f.sessionThread("s")
	f.mu.Lock()
	lastID := f.places[th][len(f.places[th])-1].id
	f.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].id != "01JASK" || got[0].place != th || got[0].remote != lastID {
		t.Fatalf("handed %+v, want the ask once with thread %s and its last part's id", got, th)
	}
}

// An ask that pings leaves room in its parts for the mentions.
func TestAskPartsLeaveRoomForMentions(t *testing.T) {
	m := bus.Message{ID: "q", Session: "s", Event: bus.EventAsk, Text: strings.Repeat("word ", 200),
		Choices: []string{"Yes"}, ExpiresAt: "2026-12-06T09:00:00.000Z"}
	o := RenderOptions{Verbose: true, Limit: 300, Ping: []string{"1", "2"}}
	for _, p := range Render(m, o).Parts {
		if n := len([]rune(p)); n > 300-2*mentionReserve {
			t.Fatalf("a part of %d code points leaves no room for two mentions under 300", n)
		}
	}
	o.Ping = nil
	if n := len([]rune(Render(m, o).Parts[0])); n <= 300-2*mentionReserve {
		t.Fatalf("an ask without pings is cut at %d, short of the limit", n)
	}
}
