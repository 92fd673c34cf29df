// A multilingual corpus for the full-text tokenizer tests and benchmarks: sentences written for
// this project in the 18 languages the reference stems, scripts it does not split (CJK, Thai),
// and the edges a tokenizer gets wrong (combining marks, emoji sequences, apostrophes, hyphens,
// URLs, digits, long tokens, odd whitespace, case mappings that change length).
export const CORPUS = [
  // English
  "The quick brown foxes were jumping over the lazy dogs' kennels.",
  "She doesn't think it's running; they'd rather be organizing the national archaeological conference.",
  "Anthropologists and geologists argued about generalization, rationalization and conditionally added features.",
  "I'm happily studying the connection between hopefully-relational databases and the writers' ideas.",
  "Running, runner, ran, runs: the stemmer sees 'running' as 'run' and 'generously' as 'generous'.",
  // German
  "Die Straße war nass, aber die Kinder spielten fröhlich mit den Bällen im Garten der Großeltern.",
  "Übermäßige Geschwindigkeitsbegrenzungen ärgern die Autofahrerinnen und Autofahrer täglich.",
  "Ich habe gestern mit meinen Freundinnen über die Häuser und Bäume gesprochen. ẞ ist groß.",
  // French
  "L'été dernier, nous sommes allés à la plage avec nos amis québécois; c'était magnifique!",
  "Les œuvres complètes de l'écrivain étaient présentées dans une bibliothèque très fréquentée.",
  "Elles mangeaient des gâteaux délicieux pendant que les enfants jouaient aux cartes.",
  // Spanish
  "El niño comió manzanas mientras los pájaros cantaban en el jardín de la señora Muñoz.",
  "¿Dónde están las bibliotecas públicas? ¡Necesitamos información actualizada rápidamente!",
  // Italian
  "L'Italia è famosa per la cucina, dell'arte e degli antichi monumenti nell'antica città.",
  "I ragazzi stavano camminando lentamente verso la stazione ferroviaria principale.",
  // Portuguese
  "As crianças brincavam na praça enquanto os avós conversavam sobre as eleições e a informação.",
  "Não há nada mais bonito do que o pôr do sol em São Paulo durante o verão.",
  // Dutch
  "De kinderen fietsten gisteren naar school en de leraren waren erg tevreden over hun werkzaamheden.",
  "Het 100-jarige gebouw werd gerestaureerd door vrijwilligers uit de omliggende dorpen.",
  // Danish, Swedish, Norwegian
  "Børnene legede i haven, og de voksne drak kaffe på terrassen hele eftermiddagen.",
  "Barnen lekte i trädgården medan föräldrarna drack kaffe; flickornas cyklar stod vid huset.",
  "Barna lekte i hagen mens foreldrene drakk kaffe, og bøkene lå på bordet i stuen.",
  // Finnish
  "Lapset leikkivät puutarhassa, ja aikuiset joivat kahvia terassilla koko iltapäivän.",
  "Taloissamme asuu monia ihmisiä, jotka eivät ole koskaan käyneet ulkomailla.",
  // Hungarian
  "A gyerekek a kertben játszottak, a felnőttek pedig kávét ittak a teraszon egész délután.",
  // Romanian
  "Copiii se jucau în grădină, iar adulții beau cafea pe terasă toată după-amiaza. Şi ţara, şi țara.",
  // Turkish
  "Çocuklar bahçede oynarken yetişkinler terasta kahve içtiler. İstanbul'da ılık bir gündü; IŞIK.",
  // Russian
  "Дети играли в саду, а взрослые пили кофе на террасе весь день. Ёжик бежал быстро.",
  "Красивые девушки читали интересные книги в библиотеке университета.",
  // Greek
  "Τα παιδιά έπαιζαν στον κήπο και οι ενήλικες έπιναν καφέ στη βεράντα. ΟΔΟΣ Σίσυφος ίσα.",
  // Arabic
  "كان الأطفال يلعبون في الحديقة بينما شرب الكبار القهوة على الشرفة. مُحَمَّد والكتاب",
  // Tamil
  "குழந்தைகள் தோட்டத்தில் விளையாடினார்கள், பெரியவர்கள் காபி குடித்தார்கள்.",
  // Scripts without spaces, and other scripts
  "日本語のテキストは空白なしで書かれます。東京タワーへ行きました。",
  "中文分词是一个很难的问题，我们今天去北京大学。",
  "한국어 문장은 띄어쓰기를 사용합니다. 서울에서 만나요!",
  "ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ",
  "עברית: הילדים שיחקו בגן. हिन्दी में वाक्य लिखना आसान है। Հայերեն բառեր",
  // Emoji, symbols, combining marks
  "I ❤️ pizza 🍕🍕 and 👩‍👩‍👧‍👦 families; thumbs 👍🏽 up! ★ ☃ ™ © ® ° ± ½ ¼ ² ³",
  "Combining: e\u0301cole, n\u0303, a\u0308\u0304, Z\u0335\u0321a\u0336l\u0334g\u0337o\u0338 and Ǆ ǅ ǆ ﬁ ﬂ ﬀ Ⅻ ⅻ",
  "Math 𝐀𝐁𝐂 𝒶𝒷𝒸 𝟘𝟙𝟚, fullwidth ＡＢＣ１２３ ｱｲｳ, circled ⓐⓑ ①②, superscript x² and H₂O",
  "Case: İstanbul ΣΊΣΥΦΟΣ ΌΣΟΣ Σσς Ꞌ ꞌ Ɤ Ᲊ ǰ ŉ ß ẞ ǅ ᾈ ΐ",
  // Mixed scripts, digits, punctuation
  "Mixed: abcДЕФ日本123 x86_64 C++ C# .NET node.js e-mail co-operate re-enter well-known 3.14159 1,000,000 -42 +7",
  "Apostrophes: don't can’t it's O'Neill rock'n'roll l’homme dell’arte 'quoted' ‘single’ “double”",
  "URLs and mail: https://example.com/path/to/page?query=value&other=1#frag mailto:someone@example.org www.test.co.uk",
  "Numbers: 2024-01-15 12:30:45 v1.2.3 #hashtag @mention $100 €50 ¥1000 ١٢٣ ४५६ 〇一二三",
  // Long tokens
  "Supercalifragilisticexpialidocious pneumonoultramicroscopicsilicovolcanoconiosis Donaudampfschifffahrtsgesellschaftskapitän",
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa end",
  "ééééééééééééééééééé éééééééééééééééééééé ééééééééééééééééééééé 日日日日日日日日日日日日日 日日日日日日日日日日日日日日",
  "x".repeat(300) + " tail",
  // Whitespace and emptiness
  "",
  " ",
  "   \t\n  ",
  "tab\tseparated\nnew\r\nlines\fand\vvertical\u00a0nbsp\u2003emspace\u200bzwsp\u3000ideographic",
  "a",
  "The",
  "the the the",
  "!!! ??? ... ---",
  "ǅ",
];
