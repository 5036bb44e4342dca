package fakediscord_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// Paging forward with after= as discord.py does: each page is the limit
// messages right after the ID, newest first, so its first element is the
// next after.
func TestHistoryPagesForwardWithAfter(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}})
	var ids []string
	for i := range 250 {
		m, err := f.InjectMessage(channel, user, fmt.Sprint("line ", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}

	page := func(t *testing.T, fetch func(after string) []string) {
		t.Helper()
		var got []string
		var sizes []int
		after := "0"
		for {
			p := fetch(after)
			if len(p) == 0 {
				break
			}
			if !slices.IsSortedFunc(p, func(a, b string) int { return -cmpSnowflake(a, b) }) {
				t.Fatalf("page after %s not newest first: %v", after, p)
			}
			sizes = append(sizes, len(p))
			for _, id := range slices.Backward(p) {
				got = append(got, id)
			}
			after = p[0]
		}
		if !slices.Equal(got, ids) {
			t.Fatalf("paged %d messages, want each of the %d once in order", len(got), len(ids))
		}
		if !slices.Equal(sizes, []int{100, 100, 50}) {
			t.Fatalf("page sizes %v", sizes)
		}
	}

	t.Run("raw", func(t *testing.T) {
		page(t, func(after string) []string { return listIDs(t, f, "?limit=100&after="+after) })
		// Right after the ID, not the newest ones after it; 50 by default.
		if got := listIDs(t, f, "?limit=3&after="+ids[10]); !slices.Equal(got, []string{ids[13], ids[12], ids[11]}) {
			t.Fatalf("limit 3 after the 11th = %v", got)
		}
		if got := listIDs(t, f, "?after="+ids[0]); len(got) != 50 || got[0] != ids[50] || got[49] != ids[1] {
			t.Fatalf("default limit after the first: %d messages %v", len(got), got)
		}
		// Without after, the newest ones (before the given one, if any).
		if got := listIDs(t, f, "?limit=2"); !slices.Equal(got, []string{ids[249], ids[248]}) {
			t.Fatalf("newest two = %v", got)
		}
		if got := listIDs(t, f, "?limit=2&before="+ids[5]); !slices.Equal(got, []string{ids[4], ids[3]}) {
			t.Fatalf("two before the 6th = %v", got)
		}
	})

	t.Run("discordgo", func(t *testing.T) {
		s := newSession(t, f, token)
		page(t, func(after string) []string {
			ms, err := s.ChannelMessages(channel, 100, "", after, "")
			if err != nil {
				t.Fatal(err)
			}
			out := make([]string, len(ms))
			for i, m := range ms {
				out[i] = m.ID
			}
			return out
		})
		ms, err := s.ChannelMessages(channel, 0, "", ids[199], "")
		if err != nil || len(ms) != 50 || ms[0].ID != ids[249] || ms[49].ID != ids[200] || ms[0].Content != "line 249" {
			t.Fatalf("default page after the 200th = %d messages, %v", len(ms), err)
		}
		_, err = s.ChannelMessages(channel, 101, "", "", "")
		wantREST(t, err, http.StatusBadRequest, discordgo.ErrCodeInvalidFormBody)
	})
}

func listIDs(t *testing.T, f *fakediscord.Server, query string) []string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.URL()+"/api/v9/channels/"+channel+"/messages"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bot "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET messages%s: %d %s", query, resp.StatusCode, body)
	}
	var ms []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &ms); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// cmpSnowflake orders IDs as numbers, as Discord does.
func cmpSnowflake(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
