package discord

import (
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/ownership"
)

// DefaultIdentifyReserve is how many of the day's session starts a daemon
// leaves untouched. Discord resets the token of a bot that starts more
// sessions in a day than GET /gateway/bot's session_start_limit allows
// (1,000 for most bots); a crash loop or a reconnect storm gets there in
// hours, and the reserve leaves room for a person to look before that.
const DefaultIdentifyReserve = 50

// budgetWait is the longest a daemon waits on a spent budget before asking
// again: Discord's answer is the authority, and it may reset early.
// budgetMinWait is the shortest: a window said to end now (reset_after 0
// or less) is asked about again after it, never in a loop.
const (
	budgetWait    = 10 * time.Minute
	budgetMinWait = 5 * time.Second
)

// identifyVerdict is whether a daemon may start a gateway session now.
type identifyVerdict struct {
	ok      bool
	until   time.Time // when to ask again, if not ok
	message string    // why not, for the record
}

// judgeBudget decides, from session_start_limit read at now, whether
// the next connect keeps the reserve. A connect that will RESUME (a READY
// began a session) costs no start, and is let through while any is left:
// refusing it would keep the bot offline until the reset for nothing. A
// limit the service did not state (total 0) is no limit we know of.
func judgeBudget(l discordgo.SessionInformation, reserve int, resuming bool, now time.Time) identifyVerdict {
	if l.Total <= 0 || l.Remaining > reserve || resuming && l.Remaining > 0 {
		return identifyVerdict{ok: true}
	}
	after := time.Duration(l.ResetAfter) * time.Millisecond
	reset := now.Add(max(after, 0))
	return identifyVerdict{
		until: now.Add(min(max(after, budgetMinWait), budgetWait)),
		message: fmt.Sprintf("%d of %d session starts left today, at or below the reserve of %d: not identifying until Discord resets them at %s (too many logins get a bot's token reset)",
			l.Remaining, l.Total, reserve, reset.UTC().Format(time.RFC3339)),
	}
}

// budgetLowError is a connect not made: the budget is at the reserve.
type budgetLowError struct{ identifyVerdict }

func (e *budgetLowError) Error() string { return e.message }

// loginsOf is session_start_limit, read at now, as the record shows it.
// A service's odd answer (a negative figure, more left than allowed) is
// clamped into what the record can hold; none stated is none shown.
func loginsOf(l discordgo.SessionInformation, now time.Time) *ownership.Logins {
	if l.Total <= 0 {
		return nil
	}
	limit := int64(l.Total)
	used := min(max(limit-int64(l.Remaining), 0), limit)
	reset := now.Add(max(time.Duration(l.ResetAfter)*time.Millisecond, 0))
	return &ownership.Logins{Used: used, Limit: limit, ResetAt: reset.UnixMilli()}
}

// started counts the session a READY began: Discord spent one more start
// since the budget was read.
func (d *transport) started() {
	for {
		l := d.logins.Load()
		if l == nil {
			return
		}
		c := *l
		c.Used = min(c.Used+1, c.Limit)
		if d.logins.CompareAndSwap(l, &c) {
			return
		}
	}
}

// withLogins adds the latest count of session starts to every report.
func (d *transport) withLogins(report func(chat.Health)) func(chat.Health) {
	return func(h chat.Health) {
		h.Logins = d.logins.Load()
		report(h)
	}
}
