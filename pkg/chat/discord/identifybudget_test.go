package discord

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

func TestJudgeBudget(t *testing.T) {
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	hour := int(time.Hour / time.Millisecond)
	tests := []struct {
		name      string
		limit     discordgo.SessionInformation
		ok        bool
		until     time.Time
		inMessage string
	}{
		{"plenty", discordgo.SessionInformation{Total: 1000, Remaining: 1000, ResetAfter: hour}, true, time.Time{}, ""},
		{"one above the reserve", discordgo.SessionInformation{Total: 1000, Remaining: 51, ResetAfter: hour}, true, time.Time{}, ""},
		{"at the reserve: refused", discordgo.SessionInformation{Total: 1000, Remaining: 50, ResetAfter: hour}, false,
			now.Add(budgetWait), "50 of 1000 session starts left"},
		{"spent, resetting soon: asked again at the reset", discordgo.SessionInformation{Total: 1000, Remaining: 0, ResetAfter: 90_000}, false,
			now.Add(90 * time.Second), "until Discord resets them at 2026-12-06T10:01:30Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := judgeBudget(tt.limit, DefaultIdentifyReserve, now)
			if v.ok != tt.ok || !v.until.Equal(tt.until) || !strings.Contains(v.message, tt.inMessage) {
				t.Fatalf("judgeBudget = %+v, want ok %v until %v with %q", v, tt.ok, tt.until, tt.inMessage)
			}
		})
	}
}
