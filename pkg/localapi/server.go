package localapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// Server answers a Backend's requests over HTTP, to the loop's uid only.
type Server struct {
	b   Backend
	log logr.Logger
	uid int
	// dir is the agent dir served: requests for another are refused, and
	// all are until it is set (Serve sets it).
	dir DirID
}

// NewServer serves b to processes of this process's uid.
func NewServer(b Backend, log logr.Logger) *Server {
	return &Server{b: b, log: log, uid: os.Getuid()}
}

// routes is the API. Adding an endpoint is one line here, and its method
// on Backend.
func (s *Server) routes() map[string]http.Handler {
	return map[string]http.Handler{
		PathStatus:  endpoint(s, false, s.b.Status),
		PathStop:    endpoint(s, true, s.b.Stop),
		PathStart:   endpoint(s, true, s.b.Start),
		PathRestart: endpoint(s, true, s.b.Restart),
		PathGC:      endpoint(s, true, s.b.GC),
		// A send is not logged at info level: agents send many.
		PathSend: endpointMax(s, false, MaxSendRequest, s.b.Send),
	}
}

// Handler is the whole API: the peer check first, then the endpoints.
func (s *Server) Handler() http.Handler {
	routes := s.routes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer, err := peerFrom(r.Context())
		if err := decidePeer(peer, err, s.uid); err != nil {
			s.log.Error(err, "local API request refused", "path", r.URL.Path, "peerUID", peer.UID, "peerPID", peer.PID)
			writeJSON(w, http.StatusForbidden, &Error{Message: err.Error(), Code: exitFailed})
			return
		}
		if err := decideDir(s.dir, r.Header.Values(DirHeader)); err != nil {
			s.log.Error(err, "local API request refused", "path", r.URL.Path, "peerPID", peer.PID)
			writeJSON(w, http.StatusForbidden, &Error{Message: err.Error(), Code: exitFailed})
			return
		}
		h, ok := routes[r.URL.Path]
		if !ok {
			writeJSON(w, http.StatusNotFound, badRequest("no endpoint %s (this loop serves /v1)", r.URL.Path))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// endpoint decodes a Req (POST, JSON, at most MaxRequest bytes, no unknown
// fields), calls f and writes its answer or its error. An operation (act)
// is logged at info level with the peer that asked for it.
func endpoint[Req, Resp any](s *Server, act bool, f func(context.Context, Req) (Resp, error)) http.Handler {
	return endpointMax(s, act, MaxRequest, f)
}

// endpointMax is endpoint with a body of at most limit bytes.
func endpointMax[Req, Resp any](s *Server, act bool, limit int64, f func(context.Context, Req) (Resp, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeJSON(w, http.StatusMethodNotAllowed, badRequest("%s %s: only POST", r.Method, r.URL.Path))
			return
		}
		var req Req
		if err := decodeRequest(w, r, limit, &req); err != nil {
			writeJSON(w, statusOf(err), err)
			return
		}
		peer, _ := peerFrom(r.Context())
		log := s.log.WithValues("path", r.URL.Path, "peerPID", peer.PID)
		if act {
			log.Info("local API request")
		} else {
			log.V(1).Info("local API request")
		}
		fail := func(err error) *Error {
			if ExitCode(err) == exitFailed {
				log.Error(err, "local API request failed")
			}
			return &Error{Message: err.Error(), Code: ExitCode(err)}
		}
		if act && wantsProgress(r) {
			serveStream(w, r, req, f, fail)
			return
		}
		resp, err := f(r.Context(), req)
		if err != nil {
			e := fail(err)
			writeJSON(w, statusOf(e), e)
			return
		}
		writeJSON(w, http.StatusOK, resp)
	})
}

// bodyWait bounds the reading of a request's body, at most MaxSendRequest
// bytes on a local socket: the header timeout ends with the headers, and
// without this a client that stops sending would hold its connection (and
// a file descriptor of the loop) for ever.
var bodyWait = 10 * time.Second

func decodeRequest(w http.ResponseWriter, r *http.Request, limit int64, into any) *Error {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyWait))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return badRequest("request body over %d bytes", limit)
	case err != nil:
		// The deadline stays: net/http reads what is left of the body
		// before it answers, and closes the connection when that fails.
		return badRequest("reading the request: %v", err)
	}
	// Once the body is read, net/http clears the deadline itself for its
	// look for the client's disconnect, so an operation that takes minutes
	// is not cut short (the test checks it).
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return badRequest("request to %s: %v", r.URL.Path, err)
	}
	if dec.More() {
		return badRequest("request to %s: more than one JSON value", r.URL.Path)
	}
	return nil
}

// statusOf is the HTTP status of an error answer; the exit code in it is
// what a command line uses.
func statusOf(e *Error) int {
	switch e.Code {
	case exitUsage:
		return http.StatusBadRequest
	case exitLock:
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data, _ = json.Marshal(&Error{Message: "encoding the answer: " + err.Error(), Code: exitFailed})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// shutdownWait bounds how long a stopping loop waits for requests in
// flight; the loop's end cancels them, so they end soon.
const shutdownWait = 5 * time.Second

// Serve takes agentDir's loop lock, binds its socket and answers b on it
// until ctx is done or stop is called; stop waits for the server to end,
// removes the socket and lets go of the lock. It refuses (and touches
// nothing) when another loop runs on agentDir or something that is not a
// socket is at the path. An agent dir too deep for a socket address is
// served without the API: logged, and commands act directly.
func Serve(ctx context.Context, agentDir string, b Backend, log logr.Logger) (stop func(), err error) {
	path := SocketPath(agentDir)
	unlock, err := takeLoopLock(agentDir, path)
	if err != nil {
		return nil, err
	}
	// Taken once: the dir whose lock this loop holds is the one it serves.
	dir, err := IdentifyDir(agentDir)
	if err != nil {
		unlock()
		return nil, fmt.Errorf("local API: %w", err)
	}
	ln, err := listen(path)
	if errors.Is(err, ErrSocketPathTooLong) {
		log.Error(err, "local API not served; commands from other shells act directly, with their own environment")
		return unlock, nil
	}
	if err != nil {
		unlock()
		return nil, err
	}
	s := NewServer(b, log)
	s.dir = dir
	srv := &http.Server{
		Handler:           s.Handler(),
		ConnContext:       withPeer,
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    MaxHeader,
		ErrorLog:          httpErrorLog(log),
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(err, "local API stopped serving")
		}
	}()
	log.Info("local API serving", "socket", path)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			sctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil {
				_ = srv.Close()
			}
			<-served
			if err := ln.close(); err != nil {
				log.Error(err, "closing the local API")
			}
			unlock()
		})
	}
	context.AfterFunc(ctx, stop)
	return stop, nil
}

// httpErrorLog sends net/http's own complaints (a malformed request, a
// connection reset) to the loop's log at V(1).
func httpErrorLog(l logr.Logger) *log.Logger {
	return log.New(logWriter{l}, "", 0)
}

type logWriter struct{ l logr.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.V(1).Info("local API: " + string(bytes.TrimSpace(p)))
	return len(p), nil
}
