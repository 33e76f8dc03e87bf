
/d910ceef496ff2d746176506e296f4b3_z53356_a126365‹
…
 6ca51ef38eb42820d27503ee96b634b5126365š™™™™™¹?*http://test.com/nurl2<ADM>:test.comJ1R1zIAB1€¬ˆú²http://test.com/burl1 880184da7ec02b1f42802acb46b63b3c"USD