package faketelegram

import "time"

// Limit is a chat's posting budget: a pace with bursts and a cap per
// window, as the service's FAQ words its limits ("no more than one
// message per second in a particular chat... short bursts... no more than
// 20 messages per minute" in a group). A post over it is answered 429
// with the wait until it would fit. The zero Limit has no bounds.
type Limit struct {
	// Burst posts may go at once; a chat earns one more each Every (up to
	// Burst). Every 0 sets no pace.
	Burst int
	Every time.Duration
	// At most GroupMax posts in any GroupWindow; 0 sets no cap.
	GroupMax    int
	GroupWindow time.Duration
}

// TelegramLimit is the service's documented budget for a group. The burst
// size is not documented; 3 is this fake's.
var TelegramLimit = Limit{Burst: 3, Every: time.Second, GroupMax: 20, GroupWindow: time.Minute}

// budget is one chat's Limit with its recent posts. Guarded by Server.mu.
type budget struct {
	limit  Limit
	tokens float64     // posts the pace allows now, up to Burst
	last   time.Time   // when tokens was last brought up to date
	window []time.Time // the posts inside the current GroupWindow, oldest first
}

// wait is how long a post must wait at now; 0 when it may go.
func (b *budget) wait(now time.Time) time.Duration {
	b.refill(now)
	var d time.Duration
	if b.limit.Every > 0 && b.tokens < 1 {
		d = time.Duration((1 - b.tokens) * float64(b.limit.Every))
	}
	if l := b.limit; l.GroupMax > 0 && l.GroupWindow > 0 && len(b.window) >= l.GroupMax {
		d = max(d, b.window[len(b.window)-l.GroupMax].Add(l.GroupWindow).Sub(now))
	}
	return d
}

// spend counts a post made at now.
func (b *budget) spend(now time.Time) {
	b.refill(now)
	if b.limit.Every > 0 {
		b.tokens--
	}
	if b.limit.GroupMax > 0 && b.limit.GroupWindow > 0 {
		b.window = append(b.window, now)
	}
}

// refill brings the pace's tokens and the window up to now; a new budget
// starts full.
func (b *budget) refill(now time.Time) {
	l := b.limit
	if l.Every > 0 {
		burst := float64(max(l.Burst, 1))
		if b.last.IsZero() {
			b.tokens = burst
		} else {
			b.tokens = min(burst, b.tokens+float64(now.Sub(b.last))/float64(l.Every))
		}
		b.last = now
	}
	for len(b.window) > 0 && now.Sub(b.window[0]) >= l.GroupWindow {
		b.window = b.window[1:]
	}
}

// SetLimit changes one chat's budget (0: the first chat's) from now on,
// its recent posts forgotten.
func (s *Server) SetLimit(chatID int64, l Limit) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.defaultChatLocked(chatID)
	if err != nil {
		return err
	}
	ch.budget = budget{limit: l}
	return nil
}

// ScaledLimit is TelegramLimit for a bot allowed postsPerMinute in a
// group: the same burst, the pace max(1, postsPerMinute/20) a second
// (one a second at the documented 20 a minute), and postsPerMinute in
// any minute. The daemon's telegram.postsPerMinute paces to it.
func ScaledLimit(postsPerMinute int) Limit {
	perSecond := max(1, postsPerMinute/20)
	return Limit{Burst: TelegramLimit.Burst, Every: time.Second / time.Duration(perSecond), GroupMax: postsPerMinute, GroupWindow: time.Minute}
}
