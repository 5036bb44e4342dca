package fakediscord

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// window is one route's current rate-limit window.
type window struct {
	start time.Time
	count int
}

// SetRouteLimit gives every route (method, path template and channel ID,
// as Discord's buckets are keyed by the major parameter) n requests per
// window of length per. Every answer on a channel route then carries the
// X-RateLimit-* headers, and a request past the limit gets 429 with
// retry_after until its window ends. n <= 0 turns the limits off.
func (s *Server) SetRouteLimit(n int, per time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.routeN, s.faults.routePer = n, per
	clear(s.windows)
}

// routeLimited applies SetRouteLimit to a channel route.
func (s *Server) routeLimited(h handler) handler {
	return func(w http.ResponseWriter, r *http.Request, token string) {
		key := r.Method + " " + strings.Replace(r.Pattern[strings.Index(r.Pattern, " ")+1:], "{cid}", r.PathValue("cid"), 1)
		now := time.Now()
		s.mu.Lock()
		n, per := s.faults.routeN, s.faults.routePer
		if n <= 0 {
			s.mu.Unlock()
			h(w, r, token)
			return
		}
		win := s.windows[key]
		if win == nil || !now.Before(win.start.Add(per)) {
			win = &window{start: now}
			s.windows[key] = win
		}
		over := win.count >= n
		if !over {
			win.count++
		}
		remaining, reset := n-win.count, win.start.Add(per)
		s.mu.Unlock()

		// Rounded up to the millisecond, as Discord's are: a client waiting
		// exactly this long is never early.
		after := time.Duration(math.Ceil(float64(reset.Sub(now))/float64(time.Millisecond))) * time.Millisecond
		rateHeaders(w, n, remaining, reset, after, bucketHash(key))
		if !over {
			h(w, r, token)
			return
		}
		s.logf("429 for %s, retry after %s", key, after)
		tooMany(w, after)
	}
}

// rateHeaders are the X-RateLimit-* headers of Discord's answers on a
// limited route.
func rateHeaders(w http.ResponseWriter, limit, remaining int, reset time.Time, after time.Duration, bucket string) {
	hdr := w.Header()
	hdr.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	hdr.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	hdr.Set("X-RateLimit-Reset", strconv.FormatFloat(float64(reset.UnixMilli())/1000, 'f', 3, 64))
	hdr.Set("X-RateLimit-Reset-After", strconv.FormatFloat(after.Seconds(), 'f', 3, 64))
	hdr.Set("X-RateLimit-Bucket", bucket)
}

// tooMany answers 429 as Discord does; discordgo sleeps for the body's
// retry_after, read as seconds.
func tooMany(w http.ResponseWriter, after time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(after.Seconds()))))
	w.Header().Set("X-RateLimit-Scope", "user")
	fakeserver.WriteJSON(w, http.StatusTooManyRequests, map[string]any{
		"message": "You are being rate limited.", "retry_after": after.Seconds(), "global": false,
	})
}

// bucketHash is an opaque bucket name, stable per route, as Discord's are.
func bucketHash(key string) string {
	return strconv.FormatUint(fakeserver.Hash(key), 16)
}
