package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
)

// CompressMinSize is the smallest body Compress compresses: below it the
// coding's own framing and the client's work to undo it cost more than the
// bytes saved.
const CompressMinSize = 1 << 10

// Compress compresses the answers of h for clients that accept them so
// (Accept-Encoding naming zstd or gzip; zstd when both are, at the same
// weight), when the body
// is CompressMinSize or longer and of a type not compressed already (an
// image, an archive). Every answer gets Vary: Accept-Encoding, compressed or
// not, so that caches keep the two apart. A list page of the catalog is
// mostly repeated JSON names and Portuguese words: about a sixth of its size
// compressed, which is what a citizen's phone or a chat agent downloads.
//
// gzip runs at level 1 (nginx's default gzip_comp_level), zstd at its
// fastest: within a few percent of the default levels' saving at about
// half their CPU (BenchmarkCompress). Request bodies are not decompressed:
// problem.DecodeJSON answers a body sent with a content coding with a 415.
//
// A HEAD answer gets the header fields its GET would get (RFC 9110,
// 9.3.2), Content-Encoding included, and never a Content-Length other than
// the length of the body GET would send (8.6): see compressHead.
//
// The library (github.com/klauspost/compress/gzhttp) is the compressing
// http.Handler wrapper of the compression package fasthttp already brings:
// it holds back the first bytes to decide on the body's size and type, and
// leaves 1xx, 204 and 304 answers alone.
func Compress(h http.Handler) http.Handler {
	compressed := compressWrapper(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Lines of a list header are one list (RFC 9110, 5.3): the
		// wrapper reads the first line only, and "identity" then "gzip"
		// would be read as identity alone.
		if v := r.Header.Values(acceptEncoding); len(v) > 1 {
			r.Header.Set(acceptEncoding, strings.Join(v, ", "))
		}
		if r.Method == http.MethodHead {
			compressHead(h, w, r)
			return
		}
		compressed(w, r)
	})
}

// compressHead serves the HEAD request r with h, the compressor deciding
// as it would for a GET. The library leaves HEAD alone, so a HEAD answer
// stated the uncompressed length where its GET sent a coded body of
// another. h still sees HEAD: a handler that writes its body for HEAD (as
// NewGin's routes do) has it coded as for GET, and the server drops it
// after counting it, so Content-Length, when the server states one, is the
// coded length. A handler that states a length and writes no body
// (http.ServeContent) has that length removed when the answer is coded:
// the coded length is not known without the body, and a HEAD answer may
// omit it.
func compressHead(h http.Handler, w http.ResponseWriter, r *http.Request) {
	get := r.WithContext(r.Context())
	get.Method = http.MethodGet
	compressWrapper(http.HandlerFunc(func(cw http.ResponseWriter, _ *http.Request) {
		h.ServeHTTP(cw, r)
		switch cw.(type) {
		case *gzhttp.GzipResponseWriter, gzhttp.GzipResponseWriterWithCloseNotify: // coding
		default:
			return
		}
		hdr := cw.Header()
		n, err := strconv.ParseInt(hdr.Get("Content-Length"), 10, 64)
		if err == nil && n >= CompressMinSize && hdr.Get("Content-Encoding") == "" && hdr.Get("Content-Range") == "" &&
			gzhttp.DefaultContentTypeFilter(hdr.Get("Content-Type")) {
			hdr.Del("Content-Length")
		}
	}))(w, get)
}

const acceptEncoding = "Accept-Encoding"

var compressWrapper = func() func(http.Handler) http.HandlerFunc {
	w, err := gzhttp.NewWrapper(
		gzhttp.MinSize(CompressMinSize),
		gzhttp.CompressionLevel(gzip.BestSpeed),
	)
	if err != nil { // the options above are constants: a bad one is a programming error
		panic(err)
	}
	return w
}()
