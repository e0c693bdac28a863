"""The API documentation at ``/docs``: Swagger UI served from this server, so that it works
offline under the page's Content-Security-Policy (``'self'`` only, no inline script).

FastAPI's own ``/docs`` loads Swagger UI's script and style from a CDN and starts it with an
inline script: a blank page without a network, and a CSP that must allow both. Here the page is
static HTML (:data:`PAGE`), Swagger UI's files come from the ``swagger-ui-bundle-v2`` package
(import name ``swagger_ui_bundle``, in the ``serve`` extra), and the start-up script is a file of
its own (:data:`INIT_JS`). ``/openapi.json`` stays FastAPI's. Asset names are looked up in
:data:`ASSETS`, never passed to the file system. docs/libraries.md says why this package.
"""

from __future__ import annotations

from pathlib import Path

from bgrl._extras import missing_extra
from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse, PlainTextResponse, Response

__all__ = ["router", "ASSETS", "PAGE", "INIT_JS", "swagger_ui_path"]

router = APIRouter(include_in_schema=False)

#: Swagger UI's files served under ``/docs/assets/`` (name -> media type).
ASSETS = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css", "favicon-32x32.png": "image/png"}

#: Starts Swagger UI on ``/openapi.json`` (a file, not an inline script, for ``script-src 'self'``).
INIT_JS = """window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis], layout: "BaseLayout"});
});
"""

#: The page: Swagger UI's style and script from ``/docs/assets/``, nothing inline.
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>bgrl - API documentation</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
"""

_MISSING = missing_extra("serve", "The API documentation page (Swagger UI's files, swagger-ui-bundle-v2)") + \
    "; the OpenAPI document is at /openapi.json"


def swagger_ui_path() -> Path | None:
    """The folder of Swagger UI's files, or None when ``swagger-ui-bundle-v2`` is missing."""
    try:
        from swagger_ui_bundle import swagger_ui_path as path  # the serve extra's Swagger UI files
    except ImportError:
        return None
    return Path(path)


@router.get("/docs")
async def docs_page() -> Response:
    if swagger_ui_path() is None:
        return PlainTextResponse(_MISSING, status_code=503)
    return HTMLResponse(PAGE)


@router.get("/docs/assets/init.js")
async def docs_init() -> Response:
    return Response(INIT_JS, media_type="text/javascript")


@router.get("/docs/assets/{name}")
async def docs_asset(name: str) -> Response:
    folder = swagger_ui_path()
    if name not in ASSETS or folder is None:
        raise HTTPException(404, f"no docs asset {name[:40]!r}: expected one of init.js, {', '.join(sorted(ASSETS))}")
    return FileResponse(folder / name, media_type=ASSETS[name], headers={"cache-control": "public, max-age=86400"})
