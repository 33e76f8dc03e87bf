
test-request-id
test-imp-idz¬úz¬¬?
test-imp-video-id*
	video/mp4 0ü8Œ@zšªÐ"a
"agltb3B1Yi1pbmNyDAsSA0FwcBiJkfIUDAYahoo WeatherB12345‚$https://itunes.apple.com/id628677149