package relay_test

import (
	"fmt"
	"strconv"
	"testing"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/chat/telegram"
	"gjc.dev/reconciler/pkg/spec"
)

// BenchmarkTelegramBurstPace: a 1,000-message burst written at once into
// one session, through the relay and the Telegram poster, against the
// fake enforcing the service's budget (429 over it) scaled to
// postsPerMinute 600: the documented 20 a minute and 1 a second, thirty
// times faster, so a minute's budget goes in 20 s and the next waits for
// the minute as it would at 20 (the real burst takes BudgetTime(1000,
// 20), about 49 minutes). msg/s is the pace achieved from the first post
// of the burst to its last; budget-msg/s the fastest the budget allows
// (telegram.BudgetTime); budget-% their ratio (the session's opening
// spends 3 of the first minute, so 100 is just out of reach); 429s are
// those the fake served during the burst.
func BenchmarkTelegramBurstPace(b *testing.B) {
	const perMinute, n = 600, 1000
	g := newBenchRig(b, "telegram")
	var err error
	g.p, err = telegram.NewPoster(&spec.TelegramConfig{BotToken: spec.NewSecret(faketelegram.DefaultToken),
		ChatID: strconv.FormatInt(faketelegram.DefaultChatID, 10), APIURL: g.ft.URL(), PostsPerMinute: perMinute}, telegram.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := g.ft.SetLimit(faketelegram.DefaultChatID, faketelegram.ScaledLimit(perMinute)); err != nil {
		b.Fatal(err)
	}
	g.start()
	g.openSession("s")
	before := g.rateLimited()
	var took float64
	b.ResetTimer()
	for i := range b.N {
		took += g.stream(fmt.Sprintf("burst %d ", i), n).Seconds()
	}
	b.StopTimer()
	achieved := float64(b.N*(n-1)) / took
	budget := float64(n-1) / telegram.BudgetTime(n, perMinute).Seconds()
	b.ReportMetric(achieved, "msg/s")
	b.ReportMetric(budget, "budget-msg/s")
	b.ReportMetric(100*achieved/budget, "budget-%")
	b.ReportMetric(float64(g.rateLimited()-before), "429s")
	b.ReportMetric(0, "ns/op")
}
