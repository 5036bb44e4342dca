package discord

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

func TestJudgeBudget(t *testing.T) {
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	hour := int(time.Hour / time.Millisecond)
	limit := func(remaining, resetAfter int) discordgo.SessionInformation {
		return discordgo.SessionInformation{Total: 1000, Remaining: remaining, ResetAfter: resetAfter}
	}
	const fresh, resuming = false, true
	tests := []struct {
		name      string
		limit     discordgo.SessionInformation
		resuming  bool
		ok        bool
		until     time.Time
		inMessage string
	}{
		{"plenty", limit(1000, hour), fresh, true, time.Time{}, ""},
		{"one above the reserve", limit(51, hour), fresh, true, time.Time{}, ""},
		{"no limit stated: none known", discordgo.SessionInformation{}, fresh, true, time.Time{}, ""},
		{"at the reserve: refused", limit(50, hour), fresh, false, now.Add(budgetWait), "50 of 1000 session starts left"},
		{"at the reserve, a RESUME costs no start: let through", limit(50, hour), resuming, true, time.Time{}, ""},
		{"none left, not even for a RESUME", limit(0, hour), resuming, false, now.Add(budgetWait), "0 of 1000"},
		{"spent, resetting soon: asked again at the reset", limit(0, 90_000), fresh, false,
			now.Add(90 * time.Second), "until Discord resets them at 2026-12-06T10:01:30Z"},
		{"a window said to end now: asked again after the least wait, never in a loop", limit(3, 0), fresh, false,
			now.Add(budgetMinWait), "3 of 1000"},
		{"a negative reset: the least wait", limit(3, -5000), fresh, false, now.Add(budgetMinWait), "resets them at 2026-12-06T10:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := judgeBudget(tt.limit, DefaultIdentifyReserve, tt.resuming, now)
			if v.ok != tt.ok || !v.until.Equal(tt.until) || !strings.Contains(v.message, tt.inMessage) {
				t.Fatalf("judgeBudget = %+v, want ok %v until %v with %q", v, tt.ok, tt.until, tt.inMessage)
			}
		})
	}
}

func TestLoginsOf(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	tests := []struct {
		name  string
		limit discordgo.SessionInformation
		want  string
	}{
		{"as stated", discordgo.SessionInformation{Total: 1000, Remaining: 990, ResetAfter: 5000}, "10/1000 at 1005000"},
		{"none stated: none shown", discordgo.SessionInformation{}, "none"},
		{"more left than allowed", discordgo.SessionInformation{Total: 1000, Remaining: 1200, ResetAfter: 5000}, "0/1000 at 1005000"},
		{"fewer than none left", discordgo.SessionInformation{Total: 1000, Remaining: -3, ResetAfter: 5000}, "1000/1000 at 1005000"},
		{"a reset in the past", discordgo.SessionInformation{Total: 1000, Remaining: 1, ResetAfter: -9_000_000}, "999/1000 at 1000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := "none"
			if l := loginsOf(tt.limit, now); l != nil {
				got = fmtLogins(l.Used, l.Limit, l.ResetAt)
			}
			if got != tt.want {
				t.Fatalf("loginsOf = %s, want %s", got, tt.want)
			}
		})
	}
}

func fmtLogins(used, limit, at int64) string { return fmt.Sprintf("%d/%d at %d", used, limit, at) }
