package cli

import (
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/municipal-apis/platform/pkg/client"
)

// resource is one collection of the API the command manages.
type resource struct {
	name    string   // command name and plural, e.g. servicos
	area    string   // client.AreaSearch or client.AreaJobs
	path    string   // collection path below the area's base URL
	columns []string // members shown by list
	intID   bool     // ids are positive integers (jobs area), else opaque strings
}

// resources are the collections, in the order help lists them.
var resources = []resource{
	{"servicos", client.AreaSearch, client.ServicesPath, []string{"id", "nome_servico", "tema_geral", "status", "autor"}, false},
	{"synonyms", client.AreaSearch, client.SynonymsPath, []string{"id", "root", "synonyms", "autor", "last_update"}, false},
	{"empregos", client.AreaJobs, client.EmpregosPath, []string{"id", "titulo", "tipo_contratacao", "status", "empresa_id"}, true},
	{"escolaridades", client.AreaJobs, client.EscolaridadesPath, []string{"id", "nivel"}, true},
	{"categorias", client.AreaJobs, client.CategoriasPath, []string{"id", "nome"}, true},
	{"empresas", client.AreaJobs, client.EmpresasPath, []string{"id", "nome"}, true},
	{"orgaos", client.AreaJobs, client.OrgaosPath, []string{"id", "nome"}, true},
	{"cursos", client.AreaJobs, client.CursosPath, []string{"id", "title", "modalidade", "status"}, true},
}

// findResource returns the resource called name.
func findResource(name string) (resource, bool) {
	for _, r := range resources {
		if r.name == name {
			return r, true
		}
	}
	return resource{}, false
}

// itemPath returns the path of the member id, refusing ids the API could
// never have issued.
func (r resource) itemPath(id string) (string, error) {
	if r.intID {
		if n, err := strconv.ParseInt(id, 10, 64); err != nil || n < 1 || id[0] == '+' {
			return "", usagef("%s id %q: must be a positive integer", r.name, id)
		}
	}
	if id == "" || id == "." || id == ".." {
		return "", usagef("%s id %q is not an id", r.name, id)
	}
	return r.path + "/" + url.PathEscape(id), nil
}

// createdID returns the id member of a created resource, for messages.
func createdID(body json.RawMessage) string {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	return cell(v.ID)
}
