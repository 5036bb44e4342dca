package faketelegram

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// StartRival starts another consumer of the bot's token, as a second copy
// of a bot would be: it long-polls getUpdates over HTTP, like any client,
// again at once after each answer and 100 ms after a failed one, so it
// and the client under test keep ending each other's waits with 409. It
// takes no updates: it never sends an offset. stop ends it and waits.
func (s *Server) StartRival() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		client := &http.Client{Timeout: (maxPollTimeout + 10) * time.Second}
		u := s.URL() + "/bot" + s.opts.Token + "/getUpdates"
		for ctx.Err() == nil {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
			req.URL.RawQuery = url.Values{"timeout": {"50"}}.Encode()
			resp, err := client.Do(req)
			if err == nil {
				_ = resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					continue
				}
			}
			select {
			case <-ctx.Done():
			case <-s.closed:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}
