package embedding

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// OpenAI calls an OpenAI-compatible embeddings endpoint (OpenAI, Ollama,
// vLLM, TEI), asking for the schema's dimension with "dimensions".
type OpenAI struct {
	// BaseURL is the server root, e.g. https://api.openai.com; a URL that
	// already ends in /embeddings is used as is.
	BaseURL   string
	Key       string
	ModelName string
	Client    *http.Client
}

type openAIRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	Dimensions     int      `json:"dimensions"`
	EncodingFormat string   `json:"encoding_format"`
}

type openAIResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Model implements Provider.
func (o *OpenAI) Model() string { return "openai/" + o.ModelName }

// Embed implements Provider.
func (o *OpenAI) Embed(ctx context.Context, text string, dims int) ([]float32, error) {
	headers := map[string]string{}
	if o.Key != "" {
		headers["Authorization"] = "Bearer " + o.Key
	}
	req := openAIRequest{Model: o.ModelName, Input: []string{text}, Dimensions: dims, EncodingFormat: "float"}
	var resp openAIResponse
	if err := postJSON(ctx, o.Client, "openai", o.endpoint(), headers, req, &resp); err != nil {
		return nil, err
	}
	if len(resp.Data) != 1 || resp.Data[0].Index != 0 {
		return nil, errors.New("openai answer does not hold exactly one embedding")
	}
	return checkVector(resp.Data[0].Embedding, dims)
}

func (o *OpenAI) endpoint() string {
	base := strings.TrimSuffix(o.BaseURL, "/")
	switch {
	case strings.HasSuffix(base, "/embeddings"):
		return base
	case strings.HasSuffix(base, "/v1"):
		return base + "/embeddings"
	}
	return base + "/v1/embeddings"
}
