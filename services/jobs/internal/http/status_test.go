package http_test

import (
	"fmt"
	"net/http"
	"testing"
)

// statuses of an emprego, and the path from a new ABERTO posting to each.
var reach = map[string][]string{
	"CRIADO":     nil,
	"ABERTO":     nil,
	"EM_ANALISE": {"EM_ANALISE"},
	"ENCERRADO":  {"ENCERRADO"},
}

// allowed lists every change docs/decisions.md#job-postings-and-courses permits; staying put is not a change.
var allowed = map[[2]string]bool{
	{"CRIADO", "ABERTO"}: true, {"CRIADO", "ENCERRADO"}: true,
	{"ABERTO", "EM_ANALISE"}: true, {"ABERTO", "ENCERRADO"}: true,
	{"EM_ANALISE", "ABERTO"}: true, {"EM_ANALISE", "ENCERRADO"}: true,
	{"CRIADO", "CRIADO"}: true, {"ABERTO", "ABERTO"}: true, {"EM_ANALISE", "EM_ANALISE"}: true, {"ENCERRADO", "ENCERRADO"}: true,
}

// newInStatus creates an emprego and walks it to status.
func (e *env) newInStatus(t *testing.T, status string) int64 {
	t.Helper()
	initial := "ABERTO"
	if status == "CRIADO" {
		initial = "CRIADO"
	}
	emp := e.mustCreate("/api/v1/empregos", map[string]any{"titulo": "Vaga", "tipo_contratacao": "CLT", "status": initial})
	for _, step := range reach[status] {
		expectStatus(t, e.do(http.MethodPatch, at("empregos", id(emp))+"/status", admin, map[string]any{"status": step}), http.StatusOK)
	}
	return id(emp)
}

func TestStatusMachine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	statuses := []string{"CRIADO", "ABERTO", "EM_ANALISE", "ENCERRADO"}
	changes := map[string]func(empID int64, to string) response{
		"the status endpoint": func(empID int64, to string) response {
			return e.do(http.MethodPatch, at("empregos", empID)+"/status", admin, map[string]any{"status": to})
		},
		"a replace": func(empID int64, to string) response {
			return e.do(http.MethodPut, at("empregos", empID), admin, map[string]any{"titulo": "Vaga", "tipo_contratacao": "CLT", "status": to})
		},
	}
	for via, change := range changes {
		for _, from := range statuses {
			for _, to := range statuses {
				ok := allowed[[2]string{from, to}]
				verb := "is forbidden (409)"
				if ok {
					verb = "is allowed"
				}
				t.Run(fmt.Sprintf("%s to %s through %s %s", from, to, via, verb), func(t *testing.T) {
					empID := e.newInStatus(t, from)
					res := change(empID, to)
					want, stored := http.StatusConflict, from
					if ok {
						want, stored = http.StatusOK, to
					}
					expectStatus(t, res, want)
					if got := e.do(http.MethodGet, at("empregos", empID), readOnly, nil).object(t)["status"]; got != stored {
						t.Errorf("stored status = %v, want %s", got, stored)
					}
				})
			}
		}
	}
	t.Run("a replace without status keeps the current one", func(t *testing.T) {
		empID := e.newInStatus(t, "EM_ANALISE")
		res := e.do(http.MethodPut, at("empregos", empID), admin, map[string]any{"titulo": "Vaga", "tipo_contratacao": "PJ"})
		expectStatus(t, res, http.StatusOK)
		if got := res.object(t)["status"]; got != "EM_ANALISE" {
			t.Errorf("status = %v", got)
		}
	})
	t.Run("an unknown status is a 422", func(t *testing.T) {
		expectFields(t, e.do(http.MethodPatch, at("empregos", e.newInStatus(t, "CRIADO"))+"/status", admin, map[string]any{"status": "PAUSADO"}), "status")
	})
	t.Run("a status change of a missing emprego is a 404", func(t *testing.T) {
		expectStatus(t, e.do(http.MethodPatch, at("empregos", 999999)+"/status", admin, map[string]any{"status": "ABERTO"}), http.StatusNotFound)
	})
}
