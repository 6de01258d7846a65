-- wrk script: POST the JSON body in $WRK_BODY (used by http_load.sh).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = os.getenv("WRK_BODY") or "{}"
