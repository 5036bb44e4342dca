package fakeslack_test

import (
	"context"
	"slices"
	"testing"

	"github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

// 1,000 replies read in pages of 200 come back each exactly once, in order,
// with and without oldest.
func TestRepliesPagingThousand(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	ctx := context.Background()
	root := mustPost(t, api, "root", "")
	replies := make([]string, 1000)
	for i := range replies {
		m, err := f.InjectMessage(channel, user, "reply", root)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && m.TS <= replies[i-1] {
			t.Fatalf("ts %s after %s", m.TS, replies[i-1])
		}
		replies[i] = m.TS
	}
	read := func(p slack.GetConversationRepliesParameters) ([]string, int) {
		t.Helper()
		p.ChannelID, p.Timestamp, p.Limit = channel, root, 200
		var out []string
		for pages := 1; ; pages++ {
			msgs, more, next, err := api.GetConversationRepliesContext(ctx, &p)
			if err != nil || pages > 10 || len(msgs) == 0 || msgs[0].Timestamp != root || len(msgs) > 201 {
				t.Fatalf("page %d of %+v: %d messages, %v", pages, p, len(msgs), err)
			}
			for _, m := range msgs[1:] {
				out = append(out, m.Timestamp)
			}
			if !more {
				if next != "" {
					t.Fatalf("last page has next_cursor %q", next)
				}
				return out, pages
			}
			p.Cursor = next
		}
	}
	for _, tc := range []struct {
		name  string
		p     slack.GetConversationRepliesParameters
		want  []string
		pages int
	}{
		{"all", slack.GetConversationRepliesParameters{}, replies, 5},
		{"oldest", slack.GetConversationRepliesParameters{Oldest: replies[99]}, replies[100:], 5},
		{"oldest inclusive", slack.GetConversationRepliesParameters{Oldest: replies[99], Inclusive: true}, replies[99:], 5},
		{"oldest the last", slack.GetConversationRepliesParameters{Oldest: replies[999]}, nil, 1},
	} {
		got, pages := read(tc.p)
		if !slices.Equal(got, tc.want) || pages != tc.pages {
			t.Errorf("%s: %d replies in %d pages, want %d in %d", tc.name, len(got), pages, len(tc.want), tc.pages)
		}
	}
}
