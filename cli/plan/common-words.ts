/**
 * Names too common to be evidence that an article refers to a changed symbol: English
 * words and generic programming words that prose uses on its own. Compared lower-cased,
 * and only for single-word names (`render`, `Config`); compound names (`renderConfig`)
 * are distinctive and never in this list's reach.
 */
export const COMMON_WORDS: ReadonlySet<string> = new Set(
  `a about above access action actions active add added address after again against all allow also always an
  and any api app apply are args array as async at auth author available await back base before begin being
  below between body bool boolean both break build but by cache call callback can case catch change changes
  check child class clean clear client close code color command commands comment commit common config
  connect console const content context continue copy core count create current data date debug default
  define delete description dev diff dir directory disable do docs document does done down each edit else
  empty enable end entry env error errors event events example exec exists exit export extend false fetch
  field fields file files filter find first flag flags for format from function get global go group handle
  handler has hash head header headers help hidden home host id if import in index info init input insert
  install instance int is item items it join json key keys kind last length level lib limit line lines link
  list load local lock log login logout main make map match max message meta method min mode model module
  more move name names new next no node none not note null number object of off on once one only open option
  options or order other out output over page params parse part pass path paths plan port post prev print
  private process project props public push put query queue read ready record ref remove render repo report
  request require reset resolve response rest result results return root route row rule rules run save
  schema scope search second see select self send server service session set setting settings setup show
  size skip sort source spec start state static status step stop store str string style sub super sync
  table tag target task test text that the then this time title to token tool tools top total true try type
  types under unit up update url use user users util utils value values var version view void wait warn
  watch when where while with word work write yes`.split(/\s+/),
);
