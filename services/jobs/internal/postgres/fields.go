package postgres

import "github.com/municipal-apis/platform/pkg/pg"

// fields names the request member behind each constraint of the schema
// (migrations/00001_schema.sql), so database errors point at what the client sent.
var fields = pg.Fields{
	"escolaridades_nivel_key":            "nivel",
	"categorias_nome_key":                "nome",
	"empregos_empresa_id_fkey":           "empresa_id",
	"empregos_escolaridade_id_fkey":      "escolaridade_id",
	"empregos_orgao_id_fkey":             "orgao_id",
	"empregos_numero_vagas_check":        "numero_vagas",
	"empregos_salario_min_check":         "salario_min",
	"empregos_salario_max_check":         "salario_max",
	"empregos_salario_range_check":       "salario_min",
	"empregos_latitude_check":            "latitude",
	"empregos_longitude_check":           "longitude",
	"empregos_jornada_trabalho_check":    "jornada_trabalho",
	"empregos_tipo_contratacao_check":    "tipo_contratacao",
	"empregos_turno_check":               "turno",
	"empregos_status_check":              "status",
	"cursos_orgao_id_fkey":               "orgao_id",
	"cursos_carga_horaria_check":         "carga_horaria",
	"cursos_numero_vagas_check":          "numero_vagas",
	"cursos_formato_aula_check":          "formato_aula",
	"cursos_modalidade_check":            "modalidade",
	"cursos_status_check":                "status",
	"cursos_turno_check":                 "turno",
	"cursos_data_termino_check":          "data_termino",
	"cursos_enrollment_end_date_check":   "enrollment_end_date",
	"curso_categorias_categoria_id_fkey": "categoria_ids",
}
