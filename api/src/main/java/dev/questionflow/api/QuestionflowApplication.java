package dev.questionflow.api;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class QuestionflowApplication {

  public static void main(String[] args) {
    SpringApplication.run(QuestionflowApplication.class, args); // see StartupDefaults
  }
}
