package fakeserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// ReadJSON decodes a request's JSON body; an empty one leaves v as it is.
func ReadJSON(r *http.Request, v any) error {
	err := json.NewDecoder(io.LimitReader(r.Body, MaxPayload)).Decode(v)
	// Read to the end: only then does net/http watch the connection and
	// cancel the request's context when the client leaves (a held post).
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxPayload))
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// WriteJSON answers status with v; the Content-Type is application/json
// unless the handler set its own.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b := MustMarshal(v)
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// MustMarshal encodes the fake's own values, which always encode.
func MustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakeserver: marshal %T: %v", v, err))
	}
	return b
}
