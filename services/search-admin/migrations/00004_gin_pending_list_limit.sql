-- +goose Up

-- Searches read these GIN indexes far more often than Servicos change. New
-- entries wait in an unsorted pending list that every search scans until it
-- is merged into the index: at the default limit of 4 MB that is ~3.5 ms per
-- search at 10k after a burst of writes or a re-index. Turning the list off
-- (fastupdate = off) doubles the time of a write instead; a 256 kB list
-- keeps writes batched and bounds what a search scans to ~0.2 ms.
ALTER INDEX search_documents_document_idx SET (gin_pending_list_limit = 256);
ALTER INDEX servicos_search_text_idx SET (gin_pending_list_limit = 256);
SELECT gin_clean_pending_list('search_documents_document_idx');
SELECT gin_clean_pending_list('servicos_search_text_idx');

-- +goose Down
ALTER INDEX search_documents_document_idx RESET (gin_pending_list_limit);
ALTER INDEX servicos_search_text_idx RESET (gin_pending_list_limit);
