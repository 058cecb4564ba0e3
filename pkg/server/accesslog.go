package server

import (
	"context"
	"encoding/hex"
	"log/slog"
	"net"
	"strconv"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/requestid"
)

// requestLines writes the access-log line of a request ("request") for a
// logger NewLogger made with the JSON format in front of a LogBuffer: the
// same bytes slog's JSON handler and contextHandler write for that record,
// appended straight into the buffer. slog's general path builds a Record,
// walks its attributes through a handle state and a pooled buffer, and
// captures the caller's program counter it does not print; the access log
// is the one line of every request, so the gateway writes it by hand.
// TestRequestLineIsWhatSlogWrites holds the two to the same bytes.
type requestLines struct {
	w     *LogBuffer
	level slog.Level // the handler's minimum level
}

// requestLine is one access-log line's content.
type requestLine struct {
	ctx    context.Context // request id and trace id, as contextHandler reads them
	time   time.Time
	level  slog.Level
	method string
	path   string
	route  string
	status int
	bytes  int64
	d      time.Duration
	remote string
	addr   net.Addr // when set, the client's address instead of remote
}

// log writes l, when its level is enabled; it reports false, having written
// nothing, when slog would write the line differently (a year outside
// 0-9999, which slog's JSON handler flags with an error of its own).
func (r *requestLines) log(l *requestLine) bool {
	if l.level < r.level {
		return true
	}
	if y := l.time.Year(); y < 0 || y >= 10000 {
		return false
	}
	_ = r.w.writeLine(l)
	return true
}

// appendTo appends l's line as slog.JSONHandler writes it with
// contextHandler in front: time, level, msg, the attributes in logRequest's
// order, then the caller's members, request_id and trace_id when the
// context has them.
func (l *requestLine) appendTo(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = l.time.Round(0).AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"`...)
	b = appendJSONString(b, l.level.String())
	b = append(b, `","msg":"request","method":"`...)
	b = appendJSONString(b, l.method)
	b = append(b, `","path":"`...)
	b = appendJSONString(b, l.path)
	b = append(b, `","route":"`...)
	b = appendJSONString(b, l.route)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, l.bytes, 10)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(l.d), 10)
	b = append(b, `,"remote":"`...)
	if l.addr != nil {
		b = appendAddr(b, l.addr)
	} else {
		b = appendJSONString(b, l.remote)
	}
	b = append(b, '"')
	if c := callerOf(l.ctx); c != nil {
		for _, m := range c.members() {
			b = appendMember(b, m)
		}
	}
	if id := requestid.From(l.ctx); id != "" {
		b = append(b, `,"request_id":"`...)
		b = appendJSONString(b, id)
		b = append(b, '"')
	}
	if sc := trace.SpanContextFromContext(l.ctx); sc.HasTraceID() {
		tid := sc.TraceID()
		b = append(b, `,"trace_id":"`...)
		b = hex.AppendEncode(b, tid[:]) // TraceID.String
		b = append(b, '"')
	}
	return append(b, '}', '\n')
}

// appendMember appends ,"name":"value" when m's value is not empty.
func appendMember(b []byte, m logMember) []byte {
	if m.value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, m.name...)
	b = append(b, `":"`...)
	b = appendJSONString(b, m.value)
	return append(b, '"')
}

// appendJSONString appends s escaped as slog's JSON handler escapes a
// string (log/slog's appendEscapedJSONString): '"', '\\' and control
// characters escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped,
// HTML characters left alone.
func appendJSONString(buf []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\')
			switch b {
			case '\\', '"':
				buf = append(buf, b)
			case '\n':
				buf = append(buf, 'n')
			case '\r':
				buf = append(buf, 'r')
			case '\t':
				buf = append(buf, 't')
			default:
				buf = append(buf, 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\u202`...)
			buf = append(buf, hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(buf, s[start:]...)
}

// appendAddr appends addr.String() escaped, formatting a TCP address (a
// client's) in place instead of building its string.
func appendAddr(b []byte, addr net.Addr) []byte {
	a, ok := addr.(*net.TCPAddr)
	if !ok || a == nil || a.Zone != "" || (len(a.IP) != 0 && len(a.IP) != net.IPv4len && len(a.IP) != net.IPv6len) {
		return appendJSONString(b, addr.String())
	}
	// As TCPAddr.String: net.JoinHostPort of the IP (nothing for none,
	// IP.String otherwise, which AppendText appends) and the port.
	v6 := len(a.IP) == net.IPv6len && a.IP.To4() == nil
	if v6 {
		b = append(b, '[')
	}
	b, _ = a.IP.AppendText(b)
	if v6 {
		b = append(b, ']')
	}
	b = append(b, ':')
	return strconv.AppendInt(b, int64(a.Port), 10)
}

const hexDigits = "0123456789abcdef"
