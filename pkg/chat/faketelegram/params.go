package faketelegram

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// params are a method's parameters as the service reads them: from the
// query string and from a url-encoded, multipart (go-telegram/bot's) or
// JSON body. An object or array is kept as its JSON text, as a form
// carries it.
type params map[string]string

// uploads are the files a multipart request carries, by field name.
type uploads map[string]upload

// upload is one file a request carries: its name and content.
type upload struct {
	name    string
	content []byte
}

// errTooLarge is a request whose file is over the service's limit.
var errTooLarge = errors.New("request entity too large")

// readParams reads every parameter of r, and all of its body: only then
// does net/http notice a client that leaves (a long poll's). The files
// of a multipart body come back apart, each at most MaxUploadBytes.
func readParams(r *http.Request) (params, uploads, error) {
	p, up := params{}, uploads{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	defer func() { _, _ = io.Copy(io.Discard, io.LimitReader(r.Body, fakeserver.MaxPayload)) }()
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		var body map[string]json.RawMessage
		if err := fakeserver.ReadJSON(r, &body); err != nil {
			return nil, nil, fmt.Errorf("can't parse JSON object: %w", err)
		}
		for k, raw := range body {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				p[k] = s
			} else if !bytes.Equal(raw, []byte("null")) {
				p[k] = string(raw)
			}
		}
	case "multipart/form-data":
		err := r.ParseMultipartForm(fakeserver.MaxPayload)
		if errors.Is(err, io.EOF) { // no parameters: go-telegram/bot's getMe
			return p, up, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("can't parse multipart form: %w", err)
		}
		defer func() { _ = r.MultipartForm.RemoveAll() }()
		for k, v := range r.MultipartForm.Value {
			p[k] = v[0]
		}
		for k, fs := range r.MultipartForm.File {
			u, err := readUpload(fs[0])
			if err != nil {
				return nil, nil, err
			}
			up[k] = u
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, nil, fmt.Errorf("can't parse form: %w", err)
		}
		for k, v := range r.PostForm {
			p[k] = v[0]
		}
	}
	return p, up, nil
}

// readUpload reads one file of a multipart body.
func readUpload(fh *multipart.FileHeader) (upload, error) {
	if fh.Size > MaxUploadBytes {
		return upload{}, errTooLarge
	}
	f, err := fh.Open()
	if err != nil {
		return upload{}, fmt.Errorf("can't read file %s: %w", fh.Filename, err)
	}
	defer f.Close()
	content, err := io.ReadAll(io.LimitReader(f, MaxUploadBytes+1))
	if err != nil {
		return upload{}, fmt.Errorf("can't read file %s: %w", fh.Filename, err)
	}
	return upload{name: fh.Filename, content: content}, nil
}

// int reads an integer parameter, def when absent or not a number (the
// service reads a bad number as 0, then clamps).
func (p params) int(name string, def int64) int64 {
	v, ok := p[name]
	if !ok || v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// bool reads a boolean parameter as the service does: "true" or "1".
func (p params) bool(name string) bool { return p[name] == "true" || p[name] == "1" }

// object decodes a JSON parameter into v; absent leaves v as it is.
func (p params) object(name string, v any) error {
	raw, ok := p[name]
	if !ok || raw == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return fmt.Errorf("can't parse %s JSON object", name)
	}
	return nil
}
