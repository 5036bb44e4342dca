package ownership

import (
	"fmt"
	"slices"

	"gjc.dev/reconciler/pkg/ownership/internal/jswriter"
)

// Logins is what the service says of the bot's logins in its current
// window (Discord's session starts: GET /gateway/bot), as the daemon last
// read it, so an operator sees a crash loop or a reconnect storm spend
// them before the service resets the token. This project's field, under
// "logins"; a provider whose service counts none writes none.
type Logins struct {
	Used    int64 `json:"used"`    // logins spent in the window, this one included
	Limit   int64 `json:"limit"`   // what the window allows
	ResetAt int64 `json:"resetAt"` // unix ms: when the window starts again
}

var loginsKeys = []string{"used", "limit", "resetAt"}

func (l *Logins) marshal(w *jswriter.Writer) {
	w.Open()
	w.Key("used").Int(l.Used)
	w.Key("limit").Int(l.Limit)
	w.Key("resetAt").Int(l.ResetAt)
	w.Close()
}

// logins is the optional logins object: exactly its three keys, safe
// integers >= 0, used at most limit.
func (f *fields) logins() *Logins {
	raw, ok := f.obj.get("logins")
	if !ok || f.err != nil {
		return nil
	}
	fail := func(format string, a ...any) *Logins {
		f.fail("logins", "must be {used, limit, resetAt}, safe integers >= 0 with used <= limit: %s", fmt.Sprintf(format, a...))
		return nil
	}
	if jsType(raw) != "object" {
		return fail("got %s", shown(raw))
	}
	obj, err := parseObject(raw)
	if err != nil {
		return fail("%v", err)
	}
	var v [3]int64
	for i, key := range loginsKeys {
		m, ok := obj.get(key)
		if !ok {
			return fail("%s missing", key)
		}
		n, ok := jsNumber(m)
		if !ok || !isSafeInteger(n) || n < 0 {
			return fail("%s is %s", key, shown(m))
		}
		v[i] = int64(n)
	}
	for _, m := range obj {
		if !slices.Contains(loginsKeys, string(m.key)) {
			return fail("unknown key %q", m.key)
		}
	}
	l := &Logins{Used: v[0], Limit: v[1], ResetAt: v[2]}
	if !l.Valid() {
		return fail("used %d over limit %d", v[0], v[1])
	}
	return l
}

// Valid reports whether the record can hold l: figures >= 0, used at most
// limit. A writer drops one that is not, rather than write a record its
// own reconciler would refuse as malformed.
func (l *Logins) Valid() bool {
	return l.Used >= 0 && l.Limit >= 0 && l.ResetAt >= 0 && l.Used <= l.Limit
}

// Clone returns a copy, nil for nil.
func (l *Logins) Clone() *Logins {
	if l == nil {
		return nil
	}
	c := *l
	return &c
}
