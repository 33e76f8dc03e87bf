

request-id
div-banner-idz¬ú""dev.sparteo.comBcom.sparteo.app@ˆ'