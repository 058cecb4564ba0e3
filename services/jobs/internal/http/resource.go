package http

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// resource serves list, create, read, replace and delete of one resource.
type resource[In, Out, F any] struct {
	path        string   // collection segment below Prefix
	name        string   // singular, for messages
	readOnly    []string // response members a client may echo back
	store       jobs.Resource[In, Out, F]
	validateNew func(*In, *problem.Violations) // rules of a create
	validate    func(*In, *problem.Violations) // rules of a replace
	filter      func(*query) F                 // reads the list filter
	id          func(*Out) int64
	related     []related // reverse arrays of a single-resource answer
}

// related is a reverse array that single-resource answers embed (the
// empregos of an empresa): they hold its first jobs.MaxEmbedded items and
// its total, and a Link header names the list that pages through all of it.
type related struct {
	member string // the array member, and its total as member_total
	list   string // the collection that lists the items
	filter string // the list's parameter that selects this resource's items
}

// link sets a Link header (RFC 8288) per reverse array of the resource id.
func (r resource[In, Out, F]) link(c *gin.Context, id int64) {
	for _, rel := range r.related {
		target := server.PublicPath(c.Request, Prefix+"/"+rel.list) + "?" + rel.filter + "=" + strconv.FormatInt(id, 10)
		c.Writer.Header().Add("Link", "<"+target+`>; rel="related"; title="`+rel.member+`"`)
	}
}

func (r resource[In, Out, F]) register(api *gin.RouterGroup, g guards) {
	api.GET("/"+r.path, g.read, server.RefuseBody, r.list) // reads its parameters and refuses the rest
	api.POST("/"+r.path, g.write, noQuery, g.idempotent(r.create))
	api.GET("/"+r.path+"/:id", g.read, noQuery, server.RefuseBody, r.get)
	api.PUT("/"+r.path+"/:id", g.write, noQuery, r.update)
	api.DELETE("/"+r.path+"/:id", g.write, noQuery, server.RefuseBody, r.delete)
}

func (r resource[In, Out, F]) list(c *gin.Context) {
	q := newQuery(c)
	p := q.page()
	f := r.filter(q)
	if err := q.err(); err != nil {
		problem.Abort(c, err)
		return
	}
	out, err := r.store.List(c.Request.Context(), f, p)
	respond(c, http.StatusOK, out, err)
}

func (r resource[In, Out, F]) create(c *gin.Context) {
	in, err := r.decode(c, r.validateNew)
	if err != nil {
		problem.Abort(c, err)
		return
	}
	out, err := r.store.Create(c.Request.Context(), in)
	if err == nil {
		c.Header("Location", server.PublicPath(c.Request, Prefix+"/"+r.path+"/"+strconv.FormatInt(r.id(out), 10)))
		r.link(c, r.id(out))
	}
	respond(c, http.StatusCreated, out, err)
}

func (r resource[In, Out, F]) get(c *gin.Context) {
	id, err := pathID(c, r.name)
	if err != nil {
		problem.Abort(c, err)
		return
	}
	out, err := r.store.Get(c.Request.Context(), id)
	if err == nil {
		r.link(c, id)
	}
	respond(c, http.StatusOK, out, err)
}

func (r resource[In, Out, F]) update(c *gin.Context) {
	id, err := pathID(c, r.name)
	if err != nil {
		problem.Abort(c, err)
		return
	}
	in, err := r.decode(c, r.validate)
	if err != nil {
		problem.Abort(c, err)
		return
	}
	out, err := r.store.Update(c.Request.Context(), id, in)
	if err == nil {
		r.link(c, id)
	}
	respond(c, http.StatusOK, out, err)
}

func (r resource[In, Out, F]) delete(c *gin.Context) {
	id, err := pathID(c, r.name)
	if err == nil {
		err = r.store.Delete(c.Request.Context(), id)
	}
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// decode reads a body of the resource as the package's decode does; when
// it breaks a rule, the references that point at no row are looked up and
// listed in the same 422, which the write's foreign keys would otherwise
// report only on the next try. A failed lookup leaves them out.
func (r resource[In, Out, F]) decode(c *gin.Context, rules func(*In, *problem.Violations)) (*In, error) {
	refs, ok := r.store.(jobs.References[In])
	if !ok {
		return decode(c, r.readOnly, rules)
	}
	return decode(c, r.readOnly, func(in *In, v *problem.Violations) {
		if rules(in, v); v.Len() > 0 {
			// The 422 stands without them: the write's foreign keys name
			// them when the client sends the body again.
			_ = refs.Dangling(c.Request.Context(), in, v)
		}
	})
}

// decode reads the JSON body into a new In and applies rules, so that one
// 422 lists the decoding problems and the violated rules together.
func decode[In any](c *gin.Context, readOnly []string, rules func(*In, *problem.Violations)) (*In, error) {
	in := new(In)
	var v problem.Violations
	if err := problem.DecodeJSON(c.Request, in, &v, readOnly...); err != nil {
		return nil, err
	}
	rules(in, &v)
	return in, v.Err()
}

// respond writes out with status, or the problem of err.
func respond(c *gin.Context, status int, out any, err error) {
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.JSON(status, out)
}

// pathID reads the :id segment; anything but a positive decimal integer
// names no resource, so it is a 404.
func pathID(c *gin.Context, name string) (int64, error) {
	raw := c.Param("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 || raw[0] == '+' {
		return 0, problem.Errorf(problem.ENOTFOUND, "there is no %s with this id", name)
	}
	return id, nil
}
